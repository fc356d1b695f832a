package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operator command against outbox rows in each state (PENDING, PROCESSING, PUBLISHED, DEAD,
 * SKIPPED) on a real database, as the relay's least-privilege polling user. A subclass of a few
 * lines supplies the database.
 */
abstract class AbstractAdminCommandsIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger TESTS = new AtomicInteger();

  /** A fresh outbox database whose relay user has the polling grants. */
  protected abstract SourceDatabase newDatabase();

  @TempDir Path dir;
  protected SourceDatabase db;
  protected String config;

  /** The rows, by state; ids follow insertion order. */
  protected TestEvent published, dead, pending, processing, skipped, deadInvoice, pendingOther;

  protected long id(TestEvent e) {
    return ((Number)
            db.adminQuery("SELECT id FROM outbox_events WHERE event_id = '" + e.eventId() + "'"))
        .longValue();
  }

  @BeforeEach
  void setUp() throws Exception {
    db = newDatabase();
    config =
        RelaySettings.polling(db, "127.0.0.1:9", "admin" + TESTS.incrementAndGet())
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    published = TestEvent.of("order", "a1", 1);
    dead = TestEvent.of("order", "a1", 2);
    pending = TestEvent.of("order", "a1", 3);
    processing = TestEvent.of("order", "a2", 1);
    skipped = TestEvent.of("order", "a3", 1);
    deadInvoice =
        new TestEvent(UUID.randomUUID().toString(), "invoice", "a4", "InvoiceVoided", 1, "{}");
    pendingOther = TestEvent.of("order", "a5", 1);
    try (Connection c = db.app()) {
      for (TestEvent e :
          List.of(published, dead, pending, processing, skipped, deadInvoice, pendingOther)) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }
    String ago = " CURRENT_TIMESTAMP - INTERVAL '%d' MINUTE";
    set(published, "status = 'PUBLISHED', attempts = 1, published_at =" + ago.formatted(5));
    set(
        dead,
        "status = 'DEAD', attempts = 5, created_at ="
            + ago.formatted(120)
            + ", last_error = 'RecordTooLargeException: too big (test)'");
    set(pending, "created_at =" + ago.formatted(60));
    set(
        processing,
        "status = 'PROCESSING', attempts = 1, claim_token = '"
            + UUID.randomUUID()
            + "', processing_until = CURRENT_TIMESTAMP + INTERVAL '1' HOUR");
    set(skipped, "status = 'SKIPPED', last_error = 'skipped by operator earlier: test'");
    set(
        deadInvoice,
        "status = 'DEAD', attempts = 1, last_error = 'InvalidTopicException: bad (test)'");
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private void set(TestEvent e, String assignments) {
    db.admin("UPDATE outbox_events SET " + assignments + " WHERE event_id = '" + e.eventId() + "'");
  }

  /** Every bookkeeping column of every row, to show that nothing changed. */
  protected List<String> rows() throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = db.app();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, status, attempts, next_attempt_at, claim_token, processing_until,"
                    + " published_at, last_error FROM outbox_events ORDER BY id")) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.append(rs.getString(i)).append('|');
        }
        rows.add(row.toString());
      }
      c.rollback();
    }
    return rows;
  }

  protected String status(TestEvent e) {
    return String.valueOf(
            db.adminQuery(
                "SELECT status FROM outbox_events WHERE event_id = '" + e.eventId() + "'"))
        .trim();
  }

  @Test
  void statusOnADatabaseWithoutTheOutboxTableNamesIt() {
    db.admin("DROP TABLE outbox_events");
    String message = refused("status", "--config", config);
    assertThat(message).contains("there is no outbox table ").contains("outbox_events on ");
    if (db.flavor() != io.outboxrelay.testsupport.database.Flavor.POSTGRESQL) {
      // In CDC mode too, whose position table exists or not.
      db.admin(
          "DROP TABLE outbox_relay_offsets, outbox_relay_schema_history, outbox_relay_leases,"
              + " outbox_relay_handoffs");
      String cdc =
          RelaySettings.cdc(db, "127.0.0.1:9", "admin-cdc")
              .writeTo(dir.resolve("cdc.properties"))
              .toString();
      assertThat(refused("status", "--config", cdc))
          .contains("there is no outbox table " + db.name() + ".outbox_events")
          .doesNotContain("outbox_relay_offsets");
    }
  }

  protected Cli.Result ok(String... args) {
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return r;
  }

  /** Exit 2, one line on standard error, nothing on standard output. */
  protected String refused(String... args) {
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).as(r.toString()).isEmpty();
    assertThat(r.err().strip()).as(r.toString()).doesNotContain("\n");
    return r.err().strip();
  }

  private static void assertNoPayload(String output) {
    // Fragments of TestEvent's payload that ids and hex digits cannot contain.
    assertThat(output)
        .doesNotContain("\"seq\"")
        .doesNotContain("\u2603")
        .doesNotContain("caf\u00e9");
  }

  @Test
  void statusCountsEachOpenStateAndAgesTheOldestPendingRowByTheDatabaseClock() throws Exception {
    JsonNode s = JSON.readTree(ok("status", "--config", config, "--json").out());
    assertThat(s.get("mode").asText()).isEqualTo("polling");
    assertThat(s.get("counts").get("pending").asLong()).isEqualTo(2);
    assertThat(s.get("counts").get("processing").asLong()).isEqualTo(1);
    assertThat(s.get("counts").get("dead").asLong()).isEqualTo(2);
    assertThat(s.get("counts").get("skipped").asLong()).isEqualTo(1);
    assertThat(s.get("dead").asLong()).isEqualTo(2);
    JsonNode oldest = s.get("oldest_pending");
    assertThat(oldest.get("id").asLong()).isEqualTo(id(pending));
    assertThat(oldest.get("age_seconds").asDouble()).isBetween(3590.0, 3700.0);
    assertThat(s.get("last_commit_age_seconds").asDouble()).isBetween(290.0, 400.0);
    Instant.parse(s.get("last_commit").asText());

    String text = ok("status", "--config", config).out();
    assertThat(text)
        .contains("(polling) on " + db.flavor().name().toLowerCase(java.util.Locale.ROOT))
        .containsPattern("pending: +2")
        .containsPattern("processing: +1")
        .containsPattern("dead: +2")
        .containsPattern("skipped: +1")
        .contains("oldest pending:  id " + id(pending));
  }

  @Test
  void deadListShowsOnlyDeadEventsWithoutPayloadsAndFiltersThem() throws Exception {
    String all = ok("dead", "list", "--config", config).out();
    assertThat(all)
        .contains(dead.eventId(), deadInvoice.eventId())
        .contains("RecordTooLargeException: too big (test)", "order/a1", "invoice/a4")
        .doesNotContain(pending.eventId(), published.eventId(), skipped.eventId());
    assertNoPayload(all);

    JsonNode list = JSON.readTree(ok("dead", "list", "--config", config, "--json").out());
    assertThat(list.get("events")).hasSize(2);
    assertThat(list.get("events").get(0).get("id").asLong()).isEqualTo(id(dead));
    assertThat(list.get("events").get(0).has("payload")).isFalse();
    assertThat(list.get("more").asBoolean()).isFalse();

    assertThat(eventIds("--event-type", "InvoiceVoided")).containsExactly(deadInvoice.eventId());
    assertThat(eventIds("--aggregate-type", "order")).containsExactly(dead.eventId());
    assertThat(eventIds("--aggregate-id", "a4")).containsExactly(deadInvoice.eventId());
    assertThat(eventIds("--since", "30m")).containsExactly(deadInvoice.eventId());
    assertThat(eventIds("--since", Instant.now().minus(Duration.ofHours(3)).toString()))
        .containsExactly(dead.eventId(), deadInvoice.eventId());
    assertThat(eventIds("--event-type", "NoSuchType")).isEmpty();
    JsonNode limited =
        JSON.readTree(ok("dead", "list", "--config", config, "--json", "--limit", "1").out());
    assertThat(limited.get("events")).hasSize(1);
    assertThat(limited.get("more").asBoolean()).isTrue();
    assertThat(ok("dead", "list", "--config", config, "--limit", "1").out())
        .contains("more DEAD events match: raise --limit (now 1)");
    assertThat(ok("dead", "list", "--config", config, "--aggregate-id", "none").out())
        .startsWith("no DEAD events in outbox_events");
  }

  @Test
  void deadCommandsReadTheColumnsTheSettingsNameAndRefuseOneTheTableLacks() throws Exception {
    String mapped =
        RelaySettings.polling(db, "127.0.0.1:9", "adminmap" + TESTS.incrementAndGet())
            .with("source.column.aggregate.type", "kind")
            .writeTo(dir.resolve("mapped.properties"))
            .toString();
    assertThat(refused("dead", "list", "--config", mapped))
        .contains(
            "has no column kind (source.column.aggregate.type, the aggregate type): create it as"
                + " in config/");
    List<String> before = rows();

    db.admin("ALTER TABLE outbox_events RENAME COLUMN aggregate_type TO kind");
    JsonNode list =
        JSON.readTree(
            ok("dead", "list", "--config", mapped, "--json", "--aggregate-type", "invoice").out());
    assertThat(list.get("events")).hasSize(1);
    assertThat(list.get("events").get(0).get("event_id").asText()).isEqualTo(deadInvoice.eventId());
    assertThat(ok("dead", "show", dead.eventId(), "--config", mapped).out())
        .contains("aggregate_type:")
        .contains("order");
    assertThat(rows()).isEqualTo(before);
  }

  private List<String> eventIds(String... filter) throws Exception {
    List<String> args = new ArrayList<>(List.of("dead", "list", "--config", config, "--json"));
    args.addAll(List.of(filter));
    List<String> ids = new ArrayList<>();
    JSON.readTree(ok(args.toArray(String[]::new)).out())
        .get("events")
        .forEach(e -> ids.add(e.get("event_id").asText()));
    return ids;
  }

  @Test
  void deadShowPrintsAnEventOfAnyStateAndItsPayloadOnlyWhenAsked() throws Exception {
    String byId = ok("dead", "show", "--config", config, String.valueOf(id(dead))).out();
    assertThat(byId)
        .contains(dead.eventId(), "DEAD", "RecordTooLargeException: too big (test)")
        .contains("(payload not shown: add --payload)");
    assertNoPayload(byId);
    assertThat(ok("dead", "show", "--config", config, dead.eventId()).out()).isEqualTo(byId);
    String withPayload = ok("dead", "show", "--config", config, dead.eventId(), "--payload").out();
    assertThat(withPayload).contains("payload:").contains("\u2603");

    for (TestEvent e : List.of(published, pending, processing, skipped)) {
      JsonNode n =
          JSON.readTree(ok("dead", "show", "--config", config, e.eventId(), "--json").out());
      assertThat(n.get("id").asLong()).isEqualTo(id(e));
      assertThat(n.get("status").asText()).isEqualTo(status(e));
      assertThat(n.has("payload")).isFalse();
    }
    assertThat(refused("dead", "show", "--config", config, "987654"))
        .endsWith("no event with id 987654 in outbox_events on " + describe());
  }

  protected String describe() {
    return db.flavor().name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + db.host()
        + ":"
        + db.port()
        + "/"
        + db.name();
  }

  @Test
  void requeueAndSkipChangeNothingWhenANamedEventIsInAnyOtherState() throws Exception {
    List<String> before = rows();
    for (TestEvent e : List.of(published, pending, processing, skipped)) {
      String state = status(e);
      assertThat(
              refused("dead", "requeue", "--config", config, String.valueOf(id(dead)), e.eventId()))
          .endsWith(
              "event id "
                  + e.eventId()
                  + " (id "
                  + id(e)
                  + ") is "
                  + state
                  + ", not DEAD: nothing was changed");
      assertThat(
              refused(
                  "dead", "skip", "--config", config, String.valueOf(id(e)), "--reason", "test"))
          .endsWith("id " + id(e) + " is " + state + ", not DEAD: nothing was changed");
    }
    assertThat(refused("dead", "requeue", "--config", config, String.valueOf(id(dead)), "987654"))
        .endsWith("no event with id 987654 in outbox_events: nothing was changed");
    assertThat(rows()).isEqualTo(before);
  }

  @Test
  void requeueMakesADeadEventPendingAndDueNowWithoutAttemptsOrClaim() throws Exception {
    List<String> before = rows();
    String dry = ok("dead", "requeue", "--config", config, dead.eventId(), "--dry-run").out();
    assertThat(dry)
        .startsWith("would requeue 1 event in outbox_events")
        .contains(dead.eventId())
        .contains("dry run: nothing changed");
    assertThat(rows()).isEqualTo(before);

    String done = ok("dead", "requeue", "--config", config, String.valueOf(id(dead))).out();
    assertThat(done).startsWith("requeued 1 event in outbox_events").contains(dead.eventId());
    assertThat(status(dead)).isEqualTo("PENDING");
    String where = " FROM outbox_events WHERE event_id = '" + dead.eventId() + "'";
    assertThat(((Number) db.adminQuery("SELECT attempts" + where)).intValue()).isZero();
    assertThat(db.adminQuery("SELECT last_error" + where))
        .isEqualTo("RecordTooLargeException: too big (test)");
    assertThat(
            ((Number)
                    db.adminQuery(
                        "SELECT COUNT(*)"
                            + where
                            + " AND next_attempt_at <= CURRENT_TIMESTAMP + INTERVAL '1' SECOND"
                            + " AND next_attempt_at >= CURRENT_TIMESTAMP - INTERVAL '1' MINUTE"
                            + " AND processing_until <= CURRENT_TIMESTAMP + INTERVAL '1' SECOND"))
                .intValue())
        .isOne();
    Object token = db.adminQuery("SELECT claim_token" + where);
    assertThat(token == null ? "" : token.toString()).isEmpty();
    // Only that row changed.
    List<String> after = rows();
    int changed = 0;
    for (int i = 0; i < before.size(); i++) {
      changed += before.get(i).equals(after.get(i)) ? 0 : 1;
    }
    assertThat(changed).isOne();
    // Once PENDING, it is no longer DEAD: a second requeue is refused.
    assertThat(refused("dead", "requeue", "--config", config, dead.eventId()))
        .contains("is PENDING, not DEAD");
  }

  @Test
  void skipKeepsWhoAndWhyWithTheFormerErrorAndNeedsAReason() throws Exception {
    List<String> before = rows();
    assertThat(refused("dead", "skip", "--config", config, dead.eventId()))
        .contains("--reason is required");
    String dry =
        ok("dead", "skip", "--config", config, dead.eventId(), "--reason", "fixed", "--dry-run")
            .out();
    assertThat(dry).startsWith("would skip 1 event").contains("dry run: nothing changed");
    assertThat(rows()).isEqualTo(before);

    ok("dead", "skip", "--config", config, dead.eventId(), "--reason", "amount fixed by hand");
    assertThat(status(dead)).isEqualTo("SKIPPED");
    assertThat(
            db.adminQuery(
                "SELECT last_error FROM outbox_events WHERE event_id = '" + dead.eventId() + "'"))
        .isEqualTo(
            "skipped by operator "
                + Operator.current().name()
                + ": amount fixed by hand | was DEAD: RecordTooLargeException: too big (test)");
    assertThat(refused("dead", "skip", "--config", config, dead.eventId(), "--reason", "again"))
        .contains("is SKIPPED, not DEAD");
    // SKIPPED rows are not DEAD: listed no more, counted apart.
    assertThat(eventIds()).containsExactly(deadInvoice.eventId());
    JsonNode s = JSON.readTree(ok("status", "--config", config, "--json").out());
    assertThat(s.get("counts").get("skipped").asLong()).isEqualTo(2);
  }

  @Test
  void requeueByFilterTakesEveryMatchOrNothingWhenMoreMatchThanTheLimit() throws Exception {
    List<String> before = rows();
    assertThat(refused("dead", "requeue", "--config", config, "--all", "--limit", "1"))
        .isEqualTo(
            "outbox-relay dead requeue: more than 1 DEAD events match (all): raise --limit (at"
                + " most 100000) or narrow the filter; nothing was changed");
    assertThat(rows()).isEqualTo(before);
    assertThat(ok("dead", "requeue", "--config", config, "--event-type", "NoSuchType").out())
        .startsWith("no DEAD events (event_type=NoSuchType) in outbox_events");
    String dry =
        ok("dead", "requeue", "--config", config, "--aggregate-type", "invoice", "--dry-run").out();
    assertThat(dry).contains(deadInvoice.eventId()).doesNotContain(dead.eventId());
    assertThat(rows()).isEqualTo(before);

    ok("dead", "requeue", "--config", config, "--all");
    assertThat(status(dead)).isEqualTo("PENDING");
    assertThat(status(deadInvoice)).isEqualTo("PENDING");
    assertThat(status(skipped)).isEqualTo("SKIPPED");
    assertThat(status(published)).isEqualTo("PUBLISHED");
    assertThat(status(processing)).isEqualTo("PROCESSING");
  }

  @Test
  void aLoginTheDatabaseRefusesIsAConfigurationProblem() throws Exception {
    // An unknown user: the local PostgreSQL may trust local connections whatever the password.
    String wrong =
        RelaySettings.polling(db, "127.0.0.1:9", "admin-pw")
            .with("source.user", "no_such_user")
            .with("source.password", "not-the-password")
            .writeTo(dir.resolve("wrong.properties"))
            .toString();
    assertThat(refused("status", "--config", wrong))
        .contains("cannot log in to " + describe() + " as 'no_such_user'")
        .endsWith("Check source.user and source.password")
        .doesNotContain("not-the-password");
  }

  @Test
  void thePositionCommandsAreForCdcMode() {
    assertThat(refused("position", "show", "--config", config))
        .contains("the position commands are for CDC mode");
  }
}
