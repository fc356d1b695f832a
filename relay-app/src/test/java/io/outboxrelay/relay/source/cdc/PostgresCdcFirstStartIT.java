package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first start of a CDC relay on PostgreSQL ({@code cdc.first.start=publish}, the default), run
 * from its distribution: the events committed before the relay ever ran and those committed while
 * it starts are each published once, in per-aggregate order; a first start that did not finish
 * begins again and loses nothing; a relay whose position was deleted streams from its slot without
 * publishing the table again.
 */
class PostgresCdcFirstStartIT {

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private SteadyWriter writer;
  private final InProcessRuns runs = new InProcessRuns();

  @BeforeEach
  void setUp(TestInfo info) {
    db = PostgresCdcDatabases.selfServing(PostgresCdcDatabases.server());
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics =
        TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgfirst", method, 16);
  }

  @AfterEach
  void tearDown() {
    if (writer != null) {
      writer.close();
    }
    runs.close(); // before the database: a live relay blocks its drop
    db.close();
  }

  private RelaySettings settings() {
    return RelaySettings.cdc(db, topics.bootstrap(), topics.name()).without("cdc.server.id");
  }

  private RelayRun run(String label, RelaySettings settings) {
    RelayRun p =
        runs.run(label, dir, settings.writeTo(dir.resolve(label + ".properties")).toString());
    p.awaitReady();
    return p;
  }

  private static List<TestEvent> existing(String prefix, int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(TestEvent.of("order", prefix + (i % 7), i / 7 + 1));
    }
    return events;
  }

  @Test
  void publishesEveryEventWrittenBeforeAndDuringTheFirstStartOnceInPerAggregateOrder()
      throws Exception {
    Ledger ledger = topics.newLedger().semanticPayloads();
    RawOutboxInserts.write(db, ledger, existing("before-", 350));
    writer = SteadyWriter.start(db, ledger, "order", 200, 12, 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> writer.commitMillis().size() > 100);

    RelayRun relay = run("relay", settings());
    relay.awaitReady();
    long atReady = writer.commitMillis().size();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() > atReady + 200);
    writer.stop(Duration.ofSeconds(10));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(90));
    assertThat(result.expected()).isGreaterThan(650);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(relay.log())
        .containsPattern(
            "first start of relay.name '[^']+': published \\d+ rows already in outbox_events"
                + " \\(cdc.first.start=publish\\), read from the snapshot of replication slot "
                + PostgresReplication.slotName(topics.name()));
    assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
  }

  @Test
  void aFirstStartThatDidNotFinishBeginsAgainWithANewSlotAndLosesNothing() throws Exception {
    Ledger ledger = topics.newLedger().semanticPayloads();
    RawOutboxInserts.write(db, ledger, existing("early-", 40));
    // What a first start killed after making its slot leaves: its marker and a slot whose
    // snapshot is gone; rows committed since are in neither the old snapshot nor ahead of it.
    String slot = PostgresReplication.slotName(topics.name());
    db.admin(
        "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')",
        "CREATE TABLE outbox_relay_offsets (id varchar(36) NOT NULL, offset_key varchar(1255),"
            + " offset_val varchar(1255), record_insert_ts timestamp NOT NULL, record_insert_seq"
            + " integer NOT NULL, PRIMARY KEY (id))",
        "GRANT SELECT, INSERT, DELETE ON outbox_relay_offsets TO " + db.relayUser(),
        "INSERT INTO outbox_relay_offsets VALUES ('x', '"
            + io.outboxrelay.relay.source.cdc.leader.OffsetKey.of(topics.name())
            + "', '{\"outbox_relay_first_start\":\"2026-12-06T00:00:00Z\"}', now(), 1)");
    RawOutboxInserts.write(db, ledger, existing("late-", 40));

    RelayRun relay = run("relay", settings());
    relay.awaitReady();
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "after", 1)));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(90));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(relay.log())
        .contains("dropped replication slot " + slot)
        .contains("published 80 rows already in outbox_events");
  }

  @Test
  void aRelayWhosePositionWasDeletedStreamsFromItsSlotWithoutPublishingTheTableAgain()
      throws Exception {
    Ledger ledger = topics.newLedger().semanticPayloads();
    RawOutboxInserts.write(db, ledger, existing("before-", 30));
    RelaySettings settings = settings().with("cdc.heartbeat.interval", "500ms");
    RelayRun first = run("first", settings);
    first.awaitReady();
    Object beforeStreamed = db.adminQuery("SELECT pg_current_wal_insert_lsn()::text");
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "streamed", 1)));
    Ledger.Result once = topics.check(ledger, Duration.ofSeconds(90));
    assertThat(once.lost()).as(once.summary()).isZero();
    // The slot confirms the last transaction with the next record (a heartbeat): once it has, the
    // slot alone says where to go on.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Boolean.TRUE.equals(
                    db.adminQuery(
                        "SELECT confirmed_flush_lsn > '"
                            + beforeStreamed
                            + "'::pg_lsn FROM pg_replication_slots WHERE slot_name = '"
                            + PostgresReplication.slotName(topics.name())
                            + "'")));
    first.close();
    // Its walsender ends a moment after the relay: the slot has one reader at a time.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Boolean.FALSE.equals(
                    db.adminQuery(
                        "SELECT active FROM pg_replication_slots WHERE slot_name = '"
                            + PostgresReplication.slotName(topics.name())
                            + "'")));

    db.admin("DELETE FROM outbox_relay_offsets");
    RawOutboxInserts.write(db, ledger, existing("while-down-", 20));
    RelayRun second = run("second", settings);
    second.awaitReady();
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "after", 1)));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(90));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(second.log())
        .contains("has replication slot " + PostgresReplication.slotName(topics.name()))
        .contains("but no stored position: streaming from the slot as it stands")
        .doesNotContain("first start of relay.name");
  }
}
