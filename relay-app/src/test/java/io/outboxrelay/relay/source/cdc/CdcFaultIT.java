package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.testing.Configs;
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
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
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
 * Faults with real processes: the relay killed with SIGKILL or stopped with SIGTERM mid-stream, and
 * the Kafka broker down for 20 seconds under load. A ledger counts every event.
 */
class CdcFaultIT {

  private static final Logger LOG = LoggerFactory.getLogger(CdcFaultIT.class);
  private static final int BATCH = 500;
  private static final AtomicInteger TESTS = new AtomicInteger();
  private static final ClassBroker OWN_BROKER = new ClassBroker();

  @TempDir Path dir;
  private final InProcessRuns runs = new InProcessRuns();
  private OutboxDatabase db;
  private String name;
  private ExecutorService writerPool;

  @AfterAll
  static void closeOwnBroker() {
    OWN_BROKER.close(); // the tests that stop it share it: see ClassBroker
  }

  @BeforeEach
  void setUp() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    db = OutboxDatabase.on(server);
    name = "fault" + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
    writerPool = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() {
    runs.close(); // before the database: a live relay blocks its drop
    writerPool.shutdownNow();
    db.close();
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

  private void awaitPublished(String bootstrap, int atLeast) {
    reader(bootstrap).readUntil(records -> records.size() >= atLeast, Duration.ofSeconds(60));
  }

  @Test
  void losesNothingWhenTheRelayIsKilledMidStreamAndDuplicatesAtMostTwoBatches() throws Exception {
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    Path config =
        RelaySettings.cdc(db, bootstrap, name)
            .with("cdc.batch.size", String.valueOf(BATCH))
            .writeTo(dir.resolve("relay.properties"));
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    RelayProcess relay = RelayProcess.run("relay-1", dir, config);
    AtomicBoolean stop = new AtomicBoolean();
    Future<?> writer = writeInBackground(ledger, 12_000, 3_000, stop);

    awaitPublished(bootstrap, 3_000);
    relay.process().kill();
    assertThat(relay.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
    InProcessRun restarted = runs.run("relay-2", dir, config.toString());
    restarted.awaitReady();
    writer.get(120, TimeUnit.SECONDS);

    Ledger.Result result = awaitAll(ledger, bootstrap);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    // At-least-once: what was acknowledged after the last committed position is sent again,
    // and a position is committed once a batch's worth of events (cdc.batch.size) was
    // acknowledged since the last commit, or sooner (cdc.commit.interval).
    // Published again: what Kafka acknowledged since the last position commit (less than a batch,
    // or what one commit interval gathered) and the batch whose sends the kill interrupted.
    assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo(2 * BATCH);
    restarted.terminate();
    assertThat(restarted.waitFor(Duration.ofSeconds(60))).isZero();
  }

  @Test
  void drainsOnSigtermAndRestartsWithoutASingleDuplicate() throws Exception {
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("relay.properties"));
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    RelayProcess relay = RelayProcess.run("relay-1", dir, config);
    AtomicBoolean stop = new AtomicBoolean();
    Future<?> writer = writeInBackground(ledger, 10_000, 3_000, stop);

    awaitPublished(bootstrap, 2_500);
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    assertThat(relay.log()).contains("stopping: draining in-flight events").contains("] stopped");
    InProcessRun restarted = runs.run("relay-2", dir, config.toString());
    restarted.awaitReady();
    writer.get(120, TimeUnit.SECONDS);

    Ledger.Result result = awaitAll(ledger, bootstrap);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    restarted.terminate();
    assertThat(restarted.waitFor(Duration.ofSeconds(60))).isZero();
  }

  @Test
  void recoversByItselfWhenTheBrokerIsDownForTwentySecondsUnderLoad() throws Exception {
    KafkaBroker broker = OWN_BROKER.started();
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    Relay relay =
        Relay.create(
            RelaySettings.cdc(db, broker.bootstrapServers(), name).parsedBy(Configs::parse));
    try {
      relay.start();
      AtomicBoolean stop = new AtomicBoolean();
      Future<?> writer = writeInBackground(ledger, 60_000, 500, stop);
      awaitPublished(broker.bootstrapServers(), 1_000);

      broker.stop();
      Thread.sleep(20_000); // the outage: events keep being committed meanwhile
      broker.start();
      Thread.sleep(5_000);
      stop.set(true);
      writer.get(30, TimeUnit.SECONDS);

      Ledger.Result result = awaitAll(ledger, broker.bootstrapServers());
      assertThat(ledger.size()).isGreaterThan(10_000);
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      // The idempotent producer keeps every record and retries it in order across the outage.
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(relay.termination()).as("the relay kept running").isNotDone();
    } finally {
      relay.close();
    }
  }

  @Test
  void retriesSendsThatFailWhileTheBrokerIsDownAndKeepsTheirOrder() throws Exception {
    KafkaBroker broker = OWN_BROKER.started();
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    Relay relay =
        Relay.create(
            RelaySettings.cdc(db, broker.bootstrapServers(), name)
                .with("kafka.producer.max.block.ms", "1000")
                .with("cdc.retry.backoff.max", "1s")
                .parsedBy(Configs::parse));
    try {
      relay.start();
      write(ledger, List.of(TestEvent.of("order", "o-1", 1)));
      awaitPublished(broker.bootstrapServers(), 1);

      broker.stop();
      // Topics the relay has not used yet: without their metadata each send fails after
      // max.block.ms, and Kafka does not answer either, so the relay waits until it does and
      // re-sends then, on a fresh producer. (A record for a topic the producer already knows
      // would instead wait in the producer, which retries it until Kafka is back: the batch
      // would then fail only once the broker answers again.)
      for (int i = 1; i <= 20; i++) {
        write(
            ledger,
            List.of(
                TestEvent.of("shipment", "s-" + (i % 3), i),
                TestEvent.of("invoice", "n-" + (i % 2), i)));
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> relay.metrics().snapshot().retries() >= 1);
      // Written while the re-send waits for Kafka: the aggregate published before the outage
      // continues after it, in order.
      for (int i = 2; i <= 6; i++) {
        write(
            ledger,
            List.of(
                TestEvent.of("order", "o-1", i), TestEvent.of("shipment", "s-" + (i % 3), 20 + i)));
      }
      broker.start();

      Ledger.Result result = awaitAll(ledger, broker.bootstrapServers());
      RelayMetrics.Snapshot metrics = relay.metrics().snapshot();
      LOG.info(
          "{}: {} resent {} retries {}",
          name,
          result.summary(),
          metrics.resent(),
          metrics.retries());
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      assertThat(result.duplicates()).as(result.summary()).isEqualTo((int) metrics.resent());
      assertThat(relay.termination()).as("the relay kept running").isNotDone();
    } finally {
      relay.close();
    }
  }

  private void write(Ledger ledger, List<TestEvent> tx) throws Exception {
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, tx);
    }
    ledger.expect(tx);
  }
}
