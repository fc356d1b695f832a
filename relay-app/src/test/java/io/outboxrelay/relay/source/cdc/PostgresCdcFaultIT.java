package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.ClassBroker;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.PostgresServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC on PostgreSQL under faults: the relay killed with SIGKILL under a steady writer, and Kafka
 * stopped while events are written, with the replication slot's {@code confirmed_flush_lsn} and the
 * stored position watched. Every event is checked by id and per-aggregate order.
 */
class PostgresCdcFaultIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresCdcFaultIT.class);
  private static final int BATCH = 500;
  private static final AtomicInteger TESTS = new AtomicInteger();
  private static final ClassBroker OWN_BROKER = new ClassBroker();

  @TempDir Path dir;
  private final InProcessRuns runs = new InProcessRuns();
  private PostgresServer server;
  private OutboxDatabase db;
  private String name;
  private ExecutorService writerPool;

  @AfterAll
  static void closeOwnBroker() {
    OWN_BROKER.close();
  }

  @BeforeEach
  void setUp() {
    server = PostgresCdcDatabases.server();
    db = PostgresCdcDatabases.selfServing(server);
    name =
        "pgfault" + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
    writerPool = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() {
    runs.close(); // before the database: a live relay blocks its drop
    writerPool.shutdownNow();
    db.close();
  }

  private RelaySettings settings(String bootstrap) {
    return RelaySettings.cdc(db, bootstrap, name)
        .without("cdc.server.id")
        .with("cdc.first.start", "skip")
        .with("cdc.heartbeat.interval", "500ms");
  }

  /** Writes {@code total} events in 1-3 event transactions over 40 aggregates, at a steady rate. */
  private Future<?> writeInBackground(Ledger ledger, int total, int perSecond, AtomicBoolean stop) {
    return PacedWriter.start(writerPool, db, ledger, total, perSecond, stop);
  }

  private TopicReader reader(String bootstrap) {
    return TopicReader.forPrefix(bootstrap, RelaySettings.topicPrefix(name));
  }

  private Ledger.Result awaitAll(Ledger ledger, String bootstrap) {
    List<ConsumedRecord> records =
        reader(bootstrap)
            .readUntilQuiet(
                ledger::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60));
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  @Test
  void losesNothingWhenTheRelayIsKilledUnderASteadyWriterAndDuplicatesAtMostTwoBatches()
      throws Exception {
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    Path config =
        settings(bootstrap)
            .with("cdc.batch.size", String.valueOf(BATCH))
            .writeTo(dir.resolve("relay.properties"));
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name)).semanticPayloads();
    RelayProcess relay = RelayProcess.run("relay-1", dir, config);
    AtomicBoolean stop = new AtomicBoolean();
    Future<?> writer = writeInBackground(ledger, 9_000, 1_500, stop);

    reader(bootstrap).readUntil(records -> records.size() >= 2_000, Duration.ofSeconds(60));
    relay.process().kill();
    assertThat(relay.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
    InProcessRun restarted = runs.run("relay-2", dir, config.toString());
    restarted.awaitReady();
    writer.get(120, TimeUnit.SECONDS);

    Ledger.Result result = awaitAll(ledger, bootstrap);
    assertThat(result.expected()).isGreaterThanOrEqualTo(9_000);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    // Published again: what Kafka acknowledged since the last position commit (less than a batch,
    // or what one commit interval gathered) and the batch whose sends the kill interrupted.
    assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo(2 * BATCH);
    restarted.terminate();
    assertThat(restarted.waitFor(Duration.ofSeconds(60))).isZero();
  }

  @Test
  void movesTheSlotsConfirmedFlushLsnOnlyPastEventsKafkaAcknowledged() throws Exception {
    KafkaBroker broker = OWN_BROKER.started();
    String bootstrap = broker.bootstrapServers();
    String slot = PostgresReplication.slotName(name);
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name)).semanticPayloads();
    try (InProcessRelays relays = new InProcessRelays()) {
      relays.start(settings(bootstrap));
      String beforeLast = null;
      for (int i = 1; i <= 5; i++) {
        beforeLast = lsn("pg_current_wal_insert_lsn()");
        RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "before", i)));
      }
      reader(bootstrap).readUntil(ledger::allArrived, Duration.ofSeconds(60));
      // The slot follows the acknowledged events: past the last one's commit (a heartbeat carries
      // the position past it), which was written after beforeLast.
      String lastBefore = beforeLast;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> after(lsn(confirmedFlush(slot)), lastBefore));

      broker.stop();
      String beforeOutage = lsn("pg_current_wal_insert_lsn()");
      String beforeLastDuring = null;
      for (int i = 1; i <= 5; i++) {
        beforeLastDuring = lsn("pg_current_wal_insert_lsn()");
        RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "during", i)));
      }
      // Heartbeats, status updates and commit attempts go on while Kafka is away: none may move
      // the slot past an event Kafka has not acknowledged, all of which lie after beforeOutage.
      long until = System.nanoTime() + Duration.ofSeconds(6).toNanos();
      while (System.nanoTime() < until) {
        String confirmed = lsn(confirmedFlush(slot));
        assertThat(after(confirmed, beforeOutage))
            .as(
                "confirmed_flush_lsn %s while Kafka is down; unacknowledged events after %s",
                confirmed, beforeOutage)
            .isFalse();
        Thread.sleep(500);
      }

      broker.start();
      Ledger.Result result = awaitAll(ledger, bootstrap);
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      String lastDuring = beforeLastDuring;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> after(lsn(confirmedFlush(slot)), lastDuring));
    }
  }

  private static String confirmedFlush(String slot) {
    return "(SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '"
        + slot
        + "')";
  }

  private String lsn(String expression) {
    return String.valueOf(db.adminQuery("SELECT " + expression + "::text"));
  }

  /** Whether LSN {@code a} is past {@code b}. */
  private boolean after(String a, String b) {
    return Boolean.TRUE.equals(db.adminQuery("SELECT '" + a + "'::pg_lsn > '" + b + "'::pg_lsn"));
  }
}
