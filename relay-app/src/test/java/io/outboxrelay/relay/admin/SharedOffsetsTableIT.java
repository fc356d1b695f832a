package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several CDC relays of one database (one outbox table each, one {@code relay.name} each) share the
 * offsets table: each relay's position commits, and the positions {@code handoff --to cdc} and
 * {@code position import} store for one of them, must leave the others' rows alone. Relays run from
 * the distribution on a private MariaDB; every event is checked by id.
 */
class SharedOffsetsTableIT {

  private static MariaDbServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private final InProcessRuns processes = new InProcessRuns();

  @BeforeAll
  static void startServer() {
    server = MariaDbServer.builder().bufferPoolSize("64M").start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void tearDown() {
    processes.close(); // before the database: a live relay blocks its drop
    if (db != null) {
      db.admin("DROP USER IF EXISTS " + otherUser());
      db.close();
    }
  }

  /**
   * The account of relay b: the position commands refuse while a binlog reader of the relay's own
   * user is connected, so relays that run beside them have users of their own.
   */
  private String otherUserName() {
    return "rb_" + db.relayUser().substring(Math.max(0, db.relayUser().length() - 20));
  }

  private String otherUser() {
    return "'" + otherUserName() + "'@'127.0.0.1'";
  }

  /** The database, with more outbox tables like {@code outbox_events} the relay user may read. */
  private OutboxDatabase database(String... moreTables) {
    OutboxDatabase d = OutboxDatabase.on(server).grantPolling();
    String user = "'" + d.relayUser() + "'@'127.0.0.1'";
    d.admin(
        "GRANT INSERT ON " + d.name() + ".outbox_events TO " + user,
        "GRANT INSERT, UPDATE ON " + d.name() + ".outbox_relay_handoffs TO " + user);
    db = d;
    String other = otherUser();
    d.admin(
        "CREATE USER " + other + " IDENTIFIED BY '" + d.password() + "'",
        "GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO " + other,
        "GRANT SELECT, INSERT, DELETE ON " + d.name() + ".outbox_relay_offsets TO " + other,
        "GRANT SELECT, INSERT, DELETE ON " + d.name() + ".outbox_relay_schema_history TO " + other,
        "GRANT SELECT, INSERT, UPDATE ON " + d.name() + ".outbox_relay_leases TO " + other,
        "GRANT SELECT ON " + d.name() + ".outbox_relay_handoffs TO " + other);
    for (String t : moreTables) {
      d.admin(
          "CREATE TABLE " + d.name() + "." + t + " LIKE " + d.name() + ".outbox_events",
          "GRANT SELECT ON " + d.name() + "." + t + " TO " + user,
          "GRANT SELECT ON " + d.name() + "." + t + " TO " + other);
    }
    return d;
  }

  private String config(TestTopics topics, String table, String file) {
    RelaySettings settings = RelaySettings.cdc(db, topics.bootstrap(), topics.name());
    if (table.equals("outbox_b")) {
      settings.with("source.user", otherUserName());
    }
    return settings
        .with("source.table", table)
        .with("cdc.startup.timeout", "30s")
        .with("polling.interval", "50ms")
        .writeTo(dir.resolve(file))
        .toString();
  }

  private RelayRun start(String label, String config, String... more) {
    RelayRun relay = processes.run(label, dir, config, more);
    relay.awaitReady();
    return relay;
  }

  private static void stop(RelayRun relay) {
    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  private static List<TestEvent> events(String aggregate, int from, int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      events.add(TestEvent.of("order", aggregate, i));
    }
    return events;
  }

  /** Commits each event in its own transaction into {@code table}, and registers it. */
  private void write(String table, Ledger ledger, List<TestEvent> events) throws Exception {
    try (Connection c = db.app();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + " (event_id, aggregate_type, aggregate_id, event_type, payload)"
                    + " VALUES (?, ?, ?, ?, ?)")) {
      for (TestEvent e : events) {
        ps.setString(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, e.payload());
        ps.executeUpdate();
        c.commit();
      }
    }
    ledger.expect(events);
  }

  /** The offsets rows, by key. */
  private Map<String, String> offsets() throws Exception {
    Map<String, String> rows = new java.util.TreeMap<>();
    try (Connection c = server.adminConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT offset_key, offset_val FROM " + db.name() + ".outbox_relay_offsets");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.put(rs.getString(1), rs.getString(2));
      }
    }
    return rows;
  }

  /**
   * Writes events for the running relay and waits until it committed a position past them: the
   * commit that, in Debezium's store, deleted every other relay's row.
   */
  private void commitOf(String table, TestTopics topics, Ledger ledger, int from) throws Exception {
    String key = OffsetKey.of(topics.name());
    String before = offsets().get(key);
    write(table, ledger, events("b", from, 3));
    topics.readAll(ledger, Duration.ofSeconds(60));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> offsets().get(key) != null && !offsets().get(key).equals(before));
  }

  private static void assertExactly(TestTopics topics, Ledger ledger) {
    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  @Test
  void twoRelaysOfOneDatabaseKeepTheirPositionsThroughInterleavedStopsAndRestarts()
      throws Exception {
    db = database("outbox_b");
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    TestTopics topicsA = TestTopics.fresh(bootstrap, "shared-a");
    TestTopics topicsB = TestTopics.fresh(bootstrap, "shared-b");
    String configA = config(topicsA, "outbox_events", "a.properties");
    String configB = config(topicsB, "outbox_b", "b.properties");
    Ledger ledgerA = topicsA.newLedger();
    Ledger ledgerB = topicsB.newLedger();

    RelayRun b = start("b-1", configB);
    RelayRun a = start("a-1", configA);
    write("outbox_events", ledgerA, events("a", 1, 5));
    commitOf("outbox_b", topicsB, ledgerB, 1);
    topicsA.readAll(ledgerA, Duration.ofSeconds(60));
    stop(a);

    // While a is down: its events wait in the binlog, and b commits positions.
    write("outbox_events", ledgerA, events("a", 6, 5));
    commitOf("outbox_b", topicsB, ledgerB, 10);
    assertThat(offsets()).containsKey(OffsetKey.of(topicsA.name()));

    a = start("a-2", configA);
    topicsA.readAll(ledgerA, Duration.ofSeconds(60));
    stop(b);
    write("outbox_b", ledgerB, events("b", 20, 5));
    write("outbox_events", ledgerA, events("a", 11, 3));
    topicsA.readAll(ledgerA, Duration.ofSeconds(60));
    b = start("b-2", configB);
    commitOf("outbox_b", topicsB, ledgerB, 30);
    stop(a);
    stop(b);

    assertThat(offsets())
        .containsOnlyKeys(OffsetKey.of(topicsA.name()), OffsetKey.of(topicsB.name()));
    assertExactly(topicsA, ledgerA);
    assertExactly(topicsB, ledgerB);
  }

  @Test
  void positionsAHandoffAndAnImportStoreWhileAnotherRelayRunsAreKept() throws Exception {
    db = database("outbox_b", "outbox_c");
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    TestTopics topicsA = TestTopics.fresh(bootstrap, "handed-a");
    TestTopics topicsB = TestTopics.fresh(bootstrap, "running-b");
    TestTopics topicsC = TestTopics.fresh(bootstrap, "imported-c");
    String configA = config(topicsA, "outbox_events", "a.properties");
    String configB = config(topicsB, "outbox_b", "b.properties");
    String configC = config(topicsC, "outbox_c", "c.properties");
    Ledger ledgerA = topicsA.newLedger();
    Ledger ledgerB = topicsB.newLedger();
    Ledger ledgerC = topicsC.newLedger();
    RelayRun b = start("b-1", configB);

    // a: polling, then handed to CDC with rows polling never published.
    RelayRun polling = start("a-polling", configA, "--mode", "polling");
    RawOutboxInserts.write(db, ledgerA, events("a", 1, 5));
    topicsA.readAll(ledgerA, Duration.ofSeconds(60));
    stop(polling);
    RawOutboxInserts.write(db, ledgerA, events("a", 6, 5));
    Cli.expect(0, "handoff", "--config", configA, "--to", "cdc");
    // The hand-off replaces a's position with its marker, which b's commits keep; a's first start
    // replaces the marker with a position, which b's commits keep too.
    commitOf("outbox_b", topicsB, ledgerB, 1);
    assertThat(offsets()).containsKey(OffsetKey.of(topicsA.name()));
    assertThat(offsets().get(OffsetKey.of(topicsA.name()))).contains("\"outbox_relay_handoff\"");
    RelayRun a = start("a-cdc", configA);
    RawOutboxInserts.write(db, ledgerA, events("a", 11, 2));
    assertExactly(topicsA, ledgerA);
    stop(a);
    commitOf("outbox_b", topicsB, ledgerB, 5);
    assertThat(offsets()).containsKey(OffsetKey.of(topicsA.name()));
    assertThat(offsets().get(OffsetKey.of(topicsA.name()))).doesNotContain("outbox_relay_handoff");

    // c: a connector's offset imported; what follows it must be published.
    Path file =
        PositionImportIT.offsetsFile(dir, "connector-c", PositionImportIT.serverNow(server));
    write("outbox_c", ledgerC, events("c", 1, 4));
    Cli.expect(
        0,
        "position",
        "import",
        "--config",
        configC,
        "--connector",
        "connector-c",
        "--from-offsets-file",
        file.toString(),
        "--yes");
    commitOf("outbox_b", topicsB, ledgerB, 10);
    assertThat(offsets()).containsKey(OffsetKey.of(topicsC.name()));
    RelayRun c = start("c-1", configC);
    write("outbox_c", ledgerC, events("c", 5, 2));
    assertExactly(topicsC, ledgerC);
    stop(c);
    stop(b);
    assertExactly(topicsB, ledgerB);
  }
}
