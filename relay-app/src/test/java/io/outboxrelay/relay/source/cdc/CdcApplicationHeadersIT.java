package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The headers column in CDC mode, with the relay run from its distribution on the private MariaDB
 * (binlog on) and the Kafka broker: a row's application headers arrive after the relay's own, in
 * member order; a row whose headers break the contract (a reserved name, text that is not JSON,
 * written to a LONGTEXT column without MariaDB's JSON check) is poison — skipped and counted with
 * {@code cdc.poison.action=skip} while the relay runs on, or the relay's stop with one ERROR naming
 * the event, the reason and the fix with {@code fail}. No header value and no stack trace reaches
 * the log.
 */
class CdcApplicationHeadersIT {

  /** A value that must never be logged: header values may hold personal data. */
  private static final String SECRET = "alice@example.com";

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private final InProcessRuns runs = new InProcessRuns();

  @BeforeEach
  void setUp(TestInfo info) {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    // The shipped DDL has JSON (MariaDB: LONGTEXT with a json_valid check); without the check
    // the application can write anything, as on MySQL with a text column.
    db.admin("ALTER TABLE outbox_events MODIFY headers LONGTEXT NULL");
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "hdr", method, 16);
  }

  @AfterEach
  void tearDown() {
    runs.close(); // before the database: a live relay blocks its drop
    db.close();
  }

  private RelaySettings settings() {
    return RelaySettings.cdc(db, topics.bootstrap(), topics.name());
  }

  private RelayRun run(String label, RelaySettings settings) {
    RelayRun p =
        runs.run(label, dir, settings.writeTo(dir.resolve(label + ".properties")).toString());
    p.awaitReady();
    return p;
  }

  /** An event of aggregate {@code o-1} and its headers column (null for SQL NULL). */
  private record Row(TestEvent event, String headers) {}

  private static Row row(long sequence, String headers) {
    return new Row(TestEvent.of("order", "o-1", sequence), headers);
  }

  private void write(List<Row> rows) throws Exception {
    try (Connection c = db.app();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type,"
                    + " payload, headers) VALUES (?, ?, ?, ?, ?, ?)")) {
      for (Row r : rows) {
        ps.setString(1, r.event().eventId());
        ps.setString(2, r.event().aggregateType());
        ps.setString(3, r.event().aggregateId());
        ps.setString(4, r.event().eventType());
        ps.setString(5, r.event().payload());
        ps.setString(6, r.headers());
        ps.addBatch();
      }
      ps.executeBatch();
      c.commit();
    }
  }

  private List<ConsumedRecord> awaitEvents(List<Row> rows) {
    List<String> ids = rows.stream().map(r -> r.event().eventId()).toList();
    return topics
        .reader()
        .readUntil(
            records -> records.stream().map(r -> r.header("id")).toList().containsAll(ids),
            Duration.ofSeconds(90));
  }

  private static List<String> headers(ConsumedRecord r) {
    return r.headers().entrySet().stream()
        .map(h -> h.getKey() + "=" + new String(h.getValue(), StandardCharsets.UTF_8))
        .toList();
  }

  private static List<String> errorLines(RelayRun p) {
    return p.log().lines().filter(l -> l.contains(" ERROR ")).toList();
  }

  @Test
  void publishesApplicationHeadersAfterTheRelaysOwnAndSkipsRowsThatBreakTheContract()
      throws Exception {
    RelayRun relay = run("relay", settings().with("cdc.poison.action", "skip"));
    Row withHeaders =
        row(1, "{ \"tenant\": \"acme\", \"email\": \"" + SECRET + "\", \"note\": \"caf\\u00e9\" }");
    Row reserved = row(2, "{\"email\":\"" + SECRET + "\",\"aggregate_id\":\"other\"}");
    Row notJson = row(3, "{\"email\": \"" + SECRET + "\"");
    Row none = row(4, null);
    Row empty = row(5, "{}");
    write(List.of(withHeaders, reserved, notJson, none, empty));

    List<ConsumedRecord> records = awaitEvents(List.of(withHeaders, none, empty));

    assertThat(records)
        .extracting(r -> r.header("id"))
        .as("the valid rows in order, the poison ones skipped")
        .containsExactly(
            withHeaders.event().eventId(), none.event().eventId(), empty.event().eventId());
    assertThat(headers(records.get(0)))
        .containsExactly(
            "id=" + withHeaders.event().eventId(),
            "event_type=Happened",
            "aggregate_type=order",
            "aggregate_id=o-1",
            "tenant=acme",
            "email=" + SECRET,
            "note=caf\u00e9");
    assertThat(headers(records.get(1))).hasSize(4);
    assertThat(headers(records.get(2))).hasSize(4);
    assertThat(errorLines(relay))
        .hasSize(2)
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains("skipping event_id=" + reserved.event().eventId())
                    .contains("header name 'aggregate_id' is reserved"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains("skipping event_id=" + notJson.event().eventId())
                    .contains("expected ',' or '}' at offset"));
    // It runs on.
    Row later = row(6, "{\"tenant\":\"acme\"}");
    write(List.of(later));
    assertThat(awaitEvents(List.of(later))).hasSize(4);
    assertThat(relay.isAlive()).isTrue();
    assertThat(relay.log()).doesNotContain(SECRET);
    assertThat(relay.stackTraceLines()).isEmpty();
  }

  @Test
  void stopsBeforeARowWithAReservedHeaderNameWithOneErrorThatNamesItAndSaysWhatToDo()
      throws Exception {
    RelayRun relay = run("relay", settings());
    Row first = row(1, "{\"tenant\":\"acme\"}");
    Row poison = row(2, "{\"email\":\"" + SECRET + "\",\"id\":\"spoofed\"}");
    Row after = row(3, null);
    write(List.of(first, poison, after));

    assertThat(relay.waitFor(Duration.ofSeconds(90))).as(relay.log()).isEqualTo(1);
    assertThat(errorLines(relay))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("event_id=" + poison.event().eventId())
                    .contains("header name 'id' is reserved for the relay's own headers")
                    .contains("cdc.poison.action=skip")
                    .contains("The position is kept just before this event"));
    assertThat(relay.log()).doesNotContain(SECRET).doesNotContain("spoofed");
    assertThat(relay.stackTraceLines()).isEmpty();
    List<ConsumedRecord> published = topics.reader().readAll(Duration.ofSeconds(2));
    assertThat(published)
        .extracting(r -> r.header("id"))
        .as("nothing after the poison event")
        .containsExactly(first.event().eventId());

    // Skipping it publishes the rest once, from the position before it.
    run("skipping", settings().with("cdc.poison.action", "skip"));
    Awaitility.await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(topics.reader().readAll(Duration.ofSeconds(1)))
                    .extracting(r -> r.header("id"))
                    .containsExactly(first.event().eventId(), after.event().eventId()));
  }
}
