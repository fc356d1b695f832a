package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.LongTransactionWriter;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelayProcesses;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.PostgresServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff} both ways on PostgreSQL, the refusal of a relay of the other mode,
 * and the recovery of a replication slot PostgreSQL invalidated or that was dropped, on one private
 * PostgreSQL for the class ({@code max_slot_wal_keep_size=32MB}, so that a slot can be invalidated
 * on purpose) and the shared broker, with an application writing throughout and a checker comparing
 * every topic with what was committed, by event id and per-aggregate order. The relays run as child
 * processes.
 */
class PostgresHandoffIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresHandoffIT.class);

  private static PostgresServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private SteadyWriter writer;
  private LongTransactionWriter longWriter;
  private final RelayProcesses processes = new RelayProcesses();

  @BeforeAll
  static void startServer() {
    server = PostgresServer.builder().setting("max_slot_wal_keep_size", "32MB").start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void tearDown() {
    if (writer != null) {
      writer.close();
    }
    if (longWriter != null) {
      longWriter.close();
    }
    processes.close();
    if (db != null) {
      db.close();
    }
  }

  private String config(TestTopics topics) {
    return config(topics, java.util.function.UnaryOperator.identity());
  }

  private String config(
      TestTopics topics, java.util.function.UnaryOperator<RelaySettings> adjustment) {
    db = PostgresCdcDatabases.selfServing(server);
    return adjustment
        .apply(
            RelaySettings.cdc(db, topics.bootstrap(), topics.name())
                .without("cdc.server.id")
                .with("cdc.startup.timeout", "30s")
                .with("cdc.heartbeat.interval", "500ms")
                .with("cdc.leader.lease", "3s")
                .with("cdc.leader.renew.interval", "500ms")
                .with("polling.interval", "50ms"))
        .writeTo(dir.resolve("relay.properties"))
        .toString();
  }

  private RelayProcess run(String label, String config, String... more) {
    return processes.run(label, dir, config, more);
  }

  private static void stop(RelayProcess relay) {
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  private static Set<String> published(List<ConsumedRecord> records) {
    Set<String> ids = new HashSet<>();
    records.forEach(r -> ids.add(r.header("id")));
    return ids;
  }

  private static Map<String, Integer> counts(List<ConsumedRecord> records) {
    Map<String, Integer> counts = new HashMap<>();
    records.forEach(r -> counts.merge(r.header("id"), 1, Integer::sum));
    return counts;
  }

  private List<ConsumedRecord> drain(TopicReader reader, Ledger ledger) {
    return reader.readUntilQuiet(
        ledger::allArrived, Duration.ofSeconds(90), Duration.ofSeconds(3), Duration.ofSeconds(60));
  }

  private void stopWriters() throws InterruptedException {
    writer.stop(Duration.ofSeconds(10));
    longWriter.stop(Duration.ofSeconds(10));
  }

  private void startWriters(Ledger ledger) {
    writer = SteadyWriter.start(db, ledger, "order", 150, 16, 2);
    // Transactions held open 1 to 4 s, across every stop, hand-off and start.
    longWriter =
        LongTransactionWriter.start(
            db, ledger, "invoice", 2, 20, Duration.ofSeconds(1), Duration.ofSeconds(4));
  }

  private String slotStatus(String slot) {
    Object status =
        db.adminQuery(
            "SELECT COALESCE(wal_status, 'none') FROM pg_replication_slots WHERE slot_name = '"
                + slot
                + "'");
    return status == null ? "gone" : status.toString();
  }

  @Test
  void handsTheTableToPollingAndBackUnderLongTransactionsWithNothingLostOrPublishedTwice()
      throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pghand");
    String config = config(topics);
    String slot = PostgresReplication.slotName(topics.name());
    TopicReader reader = topics.reader();
    Ledger ledger = topics.newLedger().semanticPayloads();

    RelayProcess cdc = run("cdc-1", config);
    cdc.awaitReady();
    startWriters(ledger);
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 300);
    assertThat(Cli.expect(2, "handoff", "--config", config, "--to", "polling").err())
        .contains("holds the lease")
        .contains("nothing was changed");
    stop(cdc);

    // To polling: long transactions are open across it.
    Cli.Result toPolling = Cli.expect(0, "handoff", "--config", config, "--to", "polling");
    LOG.info("handoff --to polling: {}", toPolling);
    assertThat(toPolling.out()).contains("to polling").contains("dropped replication slot " + slot);
    assertThat(slotStatus(slot)).isEqualTo("gone");
    // A CDC relay now refuses the table: polling's.
    RelayProcess refusedCdc = run("cdc-refused", config);
    assertThat(refusedCdc.waitFor(Duration.ofSeconds(60))).as(refusedCdc.log()).isEqualTo(2);
    assertThat(refusedCdc.log()).contains("handed to polling").contains("handoff --to cdc");

    RelayProcess polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    int before = writer.commitMillis().size();
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > before + 300);
    assertThat(Cli.expect(2, "handoff", "--config", config, "--to", "cdc").err())
        .contains("other connection(s) of user")
        .contains("nothing was changed");
    stop(polling);

    // Back to CDC: its first start publishes what polling left, from a new slot's snapshot.
    Cli.Result toCdc = Cli.expect(0, "handoff", "--config", config, "--to", "cdc");
    LOG.info("handoff --to cdc: {}", toCdc);
    RelayProcess back = run("cdc-2", config);
    back.awaitReady();
    assertThat(back.log()).contains("first start of relay.name");
    // A polling relay now refuses the table: CDC's.
    RelayProcess refusedPolling = run("polling-refused", config, "--mode", "polling");
    assertThat(refusedPolling.waitFor(Duration.ofSeconds(60)))
        .as(refusedPolling.log())
        .isEqualTo(2);
    assertThat(refusedPolling.log()).contains("handoff --to polling");
    int later = writer.commitMillis().size();
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > later + 300);

    stopWriters();
    List<ConsumedRecord> records = drain(reader, ledger);
    stop(back);
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", topics.name(), result.summary());
    assertThat(result.expected()).isGreaterThan(900);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    // Every relay stopped cleanly: nothing is published twice.
    assertThat(result.duplicates()).as(result.summary()).isZero();
  }

  @Test
  void aSlotInvalidatedWhileTheRelayStreamsStopsItWithOneErrorAndTheHandoffRecoversEveryEvent()
      throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pglost");
    String config = config(topics);
    String slot = PostgresReplication.slotName(topics.name());
    TopicReader reader = topics.reader();
    Ledger ledger = topics.newLedger().semanticPayloads();
    RelayProcess cdc = run("cdc-1", config);
    cdc.awaitReady();
    startWriters(ledger);
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 300);
    Set<String> early = Set.copyOf(writer.commitMillis().keySet());
    // The relay publishes on for a while (more than --open-transactions below), so that the early
    // events are well before its last position.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() > early.size() + 1200);
    Set<String> later = Set.copyOf(writer.commitMillis().keySet());
    reader.readUntil(r -> published(r).containsAll(later), Duration.ofSeconds(60));

    // The relay is frozen while the server writes WAL past max_slot_wal_keep_size: PostgreSQL
    // ends its walsender and invalidates the slot.
    cdc.process().pause();
    db.admin("CREATE TABLE filler (id bigint, pad text)");
    for (int round = 0; round < 6 && !"lost".equals(slotStatus(slot)); round++) {
      db.admin(
          "INSERT INTO filler SELECT g, repeat(md5(g::text), 30) FROM generate_series(1, 20000) g",
          "SELECT pg_switch_wal()",
          "CHECKPOINT");
    }
    assertThat(slotStatus(slot)).isEqualTo("lost");
    cdc.process().resume();
    assertThat(cdc.waitFor(Duration.ofSeconds(90))).as(cdc.log()).isNotZero();
    List<String> errors =
        cdc.log().lines().filter(l -> l.contains(" ERROR ") && l.contains(slot)).toList();
    LOG.info("the relay's ERROR lines naming {}: {}", slot, errors);
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0)).contains("invalidated").contains("handoff --to polling");

    // Restarted as it is: refused at once, with the same advice.
    RelayProcess refused = run("cdc-refused", config);
    assertThat(refused.waitFor(Duration.ofSeconds(60))).as(refused.log()).isEqualTo(2);
    assertThat(refused.log()).contains(slot).contains("handoff --to polling");

    // The recovery: to polling (by creation time, the slot cannot tell), and straight back.
    Cli.Result toPolling =
        Cli.expect(
            0, "handoff", "--config", config, "--to", "polling", "--open-transactions", "5s");
    LOG.info("handoff --to polling: {}", toPolling);
    assertThat(toPolling.out()).contains("invalidated").contains("to polling");
    Cli.expect(0, "handoff", "--config", config, "--to", "cdc");
    RelayProcess back = run("cdc-2", config);
    back.awaitReady();
    int resumed = writer.commitMillis().size();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() > resumed + 200);

    stopWriters();
    List<ConsumedRecord> records = drain(reader, ledger);
    stop(back);
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", topics.name(), result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    // No whole-table republish: the events published well before the relay's last position
    // (more than --open-transactions earlier) were marked PUBLISHED and went once.
    Map<String, Integer> counts = counts(records);
    long earlyTwice = early.stream().filter(id -> counts.getOrDefault(id, 0) > 1).count();
    LOG.info(
        "{} of the {} events published before the freeze were published again",
        earlyTwice,
        early.size());
    assertThat(earlyTwice).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isLessThan(result.expected() / 2);
  }

  @Test
  void retentionNeverDeletesARowBeforeItsPublicationIsConfirmedThroughAKill() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgret");
    config(topics);
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .without("cdc.server.id")
            .with("cdc.startup.timeout", "30s")
            .with("cdc.heartbeat.interval", "500ms")
            .with("cdc.retention", "1s")
            .with("cdc.retention.interval", "1s")
            .with("cdc.retention.batch.size", "50")
            .writeTo(dir.resolve("retention.properties"))
            .toString();
    TopicReader reader = topics.reader();
    Ledger ledger = topics.newLedger().semanticPayloads();
    RelayProcess first = run("cdc-1", config);
    first.awaitReady();
    startWriters(ledger);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() - db.outboxRows() > 300);
    first.process().kill();
    first.waitFor(Duration.ofSeconds(30));
    // Nothing publishes or deletes now: every committed event gone from the table is in Kafka.
    Set<String> committed = new HashSet<>(writer.commitMillis().keySet());
    committed.addAll(longWriter.commitMillis().keySet());
    Set<String> inKafka = published(reader.readAll(Duration.ofSeconds(3)));
    Set<String> inTable = new HashSet<>();
    try (Connection c = db.app();
        java.sql.ResultSet rs =
            c.createStatement().executeQuery("SELECT event_id::text FROM outbox_events")) {
      while (rs.next()) {
        inTable.add(rs.getString(1));
      }
    }
    List<String> deletedUnpublished =
        committed.stream().filter(id -> !inTable.contains(id) && !inKafka.contains(id)).toList();
    LOG.info(
        "after the kill: {} committed, {} in the table, {} published",
        committed.size(),
        inTable.size(),
        inKafka.size());
    // The writers go on while the relay is down: rows committed after the snapshot of committed
    // ids are in the table but not in that set, so count the deleted ids, not a difference.
    long deleted = committed.stream().filter(id -> !inTable.contains(id)).count();
    assertThat(deleted).as("rows retention deleted").isGreaterThan(300);
    assertThat(deletedUnpublished).as("rows deleted before they were published").isEmpty();

    RelayProcess second = run("cdc-2", config);
    second.awaitReady();
    stopWriters();
    Ledger.Result result = ledger.check(drain(reader, ledger));
    stop(second);
    LOG.info("{}: {}", topics.name(), result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
  }

  @Test
  void aSlotDroppedWhileTheRelayStreamsStopsItWithOneErrorInsteadOfStreamingFromANewSlot()
      throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgdrop");
    String config = config(topics);
    String slot = PostgresReplication.slotName(topics.name());
    Ledger ledger = topics.newLedger().semanticPayloads();
    RelayProcess cdc = run("cdc-1", config);
    cdc.awaitReady();
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-1", 1)));
    topics.readAll(ledger, Duration.ofSeconds(60));

    // Its walsender ended and the slot dropped before the connector reconnects.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              db.admin(
                  "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE"
                      + " slot_name = '"
                      + slot
                      + "' AND active_pid IS NOT NULL");
              try (Connection c = server.connect(db.name())) {
                c.createStatement().execute("SELECT pg_drop_replication_slot('" + slot + "')");
                return true;
              } catch (java.sql.SQLException stillActive) {
                return false;
              }
            });
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-1", 2)));
    assertThat(cdc.waitFor(Duration.ofSeconds(90))).as(cdc.log()).isNotZero();
    List<String> errors =
        cdc.log().lines().filter(l -> l.contains(" ERROR ") && l.contains(slot)).toList();
    LOG.info("the relay's ERROR lines naming {}: {}", slot, errors);
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0)).contains("does not exist").contains("handoff --to polling");
    assertThat(slotStatus(slot)).as("no slot was made in its place").isEqualTo("gone");

    Cli.expect(0, "handoff", "--config", config, "--to", "polling", "--open-transactions", "1s");
    Cli.expect(0, "handoff", "--config", config, "--to", "cdc");
    RelayProcess back = run("cdc-2", config);
    back.awaitReady();
    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
    stop(back);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
  }

  /**
   * Guards the time of a first start's position: the recovery of a lost slot marks {@code
   * PUBLISHED} the rows created before that time less {@code --open-transactions}, so it must be
   * the time before the slot was made. Stamped when the position was stored, after the snapshot's
   * rows were published, it took in the rows committed while they were (after the slot's consistent
   * point, never published): here those of the 4 s the first start is paused.
   */
  @Test
  void aSlotLostRightAfterAFirstStartLosesNoRowCommittedWhileTheFirstStartPublished()
      throws Exception {
    TestTopics topics =
        TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgfirstcut");
    // No streamed position is committed before the kill: the first start's stays the last.
    String config =
        config(topics, s -> s.with("cdc.commit.interval", "10m").with("cdc.batch.size", "5000"));
    String slot = PostgresReplication.slotName(topics.name());
    Ledger ledger = topics.newLedger().semanticPayloads();
    for (int batch = 0; batch < 20; batch++) {
      List<TestEvent> events = new java.util.ArrayList<>();
      for (int i = 1; i <= 1_000; i++) {
        events.add(TestEvent.of("backlog", "b-" + (i % 50), batch * 1_000L + i));
      }
      RawOutboxInserts.write(db, ledger, events);
    }
    writer = SteadyWriter.start(db, ledger, "order", 150, 16, 2);
    RelayProcess cdc = run("cdc-1", config);

    await()
        .pollInterval(Duration.ofMillis(10))
        .atMost(Duration.ofSeconds(90))
        .until(() -> !"gone".equals(slotStatus(slot)));
    cdc.process().pause();
    String stored = storedOffset();
    assertThat(stored)
        .as("the first start is paused before it stored its position")
        .contains(PostgresFirstStart.MARKER);
    Thread.sleep(4_000); // the application commits after the slot's consistent point meanwhile
    cdc.process().resume();
    await()
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofSeconds(90))
        .until(() -> PostgresReplication.isPosition(storedOffset()));
    cdc.process().kill();
    cdc.waitFor(Duration.ofSeconds(30));
    LOG.info("first start's position: {}", storedOffset());

    // The slot is lost before a later position is stored (dropped here; invalidated alike).
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              try (Connection c = server.connect(db.name())) {
                c.createStatement().execute("SELECT pg_drop_replication_slot('" + slot + "')");
                return true;
              } catch (java.sql.SQLException stillActive) {
                return false;
              }
            });
    // Once the killed relay's lease (3 s) has run out: the hand-off refuses while it is held.
    java.util.concurrent.atomic.AtomicReference<Cli.Result> toPolling =
        new java.util.concurrent.atomic.AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              toPolling.set(
                  Cli.run(
                      "handoff",
                      "--config",
                      config,
                      "--to",
                      "polling",
                      "--open-transactions",
                      "1s"));
              return toPolling.get().exitCode() != 2
                  || !toPolling.get().err().contains("holds the lease");
            });
    LOG.info("handoff --to polling: {}", toPolling.get());
    assertThat(toPolling.get().exitCode()).as(toPolling.get().toString()).isZero();
    Cli.expect(0, "handoff", "--config", config, "--to", "cdc");
    RelayProcess back = run("cdc-2", config);
    back.awaitReady();
    writer.stop(Duration.ofSeconds(10));

    TopicReader reader = TopicReader.forPrefix(topics.bootstrap(), topics.prefix());
    Ledger.Result result = ledger.check(drain(reader, ledger));
    stop(back);
    LOG.info("{}: {}", topics.name(), result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  private String storedOffset() {
    Object v =
        db.adminQuery(
            "SELECT offset_val FROM outbox_relay_offsets ORDER BY record_insert_ts DESC,"
                + " record_insert_seq DESC LIMIT 1");
    return v == null ? null : v.toString();
  }
}
