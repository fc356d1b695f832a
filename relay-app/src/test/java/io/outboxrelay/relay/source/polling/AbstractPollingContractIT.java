package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.relay.testing.VersionScenario;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The polling contract, against a real database and a real Kafka broker, with relay processes
 * started from the distribution where processes matter. A subclass of a few lines supplies the
 * database (MariaDB, PostgreSQL).
 */
abstract class AbstractPollingContractIT {

  private static final Logger LOG = LoggerFactory.getLogger(AbstractPollingContractIT.class);

  /** Producer timeouts short enough for a 10 s lease, so lease tests stay quick. */
  private static final String[][] SHORT_LEASE = {
    {"kafka.producer.delivery.timeout.ms", "3000"},
    {"kafka.producer.request.timeout.ms", "1000"},
    {"kafka.producer.max.block.ms", "1000"},
    {"polling.lease", "10s"}
  };

  /** Events each writer writes in the test of two processes with four workers each. */
  private static final int PER_WRITER = 2_000;

  /** A fresh outbox database whose relay user has the polling grants. */
  protected abstract SourceDatabase newDatabase();

  /** A ledger for this database (PostgreSQL compares jsonb payloads as JSON). */
  protected abstract Ledger ledger(String topicPrefix);

  /** A broker that creates no topic by itself; started on first use, shared by a class's tests. */
  private static KafkaBroker withoutAutoCreate;

  @TempDir Path dir;
  protected SourceDatabase db;
  protected String name;
  private TestTopics topics;
  private final List<RelayProcess> processes = new ArrayList<>();
  private final InProcessRelays relays = new InProcessRelays();

  @BeforeEach
  void setUp(TestInfo info) {
    db = newDatabase();
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(bootstrap(), "poll", method, 16);
    name = topics.name();
  }

  @AfterEach
  void tearDown() {
    processes.forEach(RelayProcess::close);
    relays.close();
    db.close();
  }

  @AfterAll
  static void stopBrokerWithoutAutoCreate() {
    synchronized (AbstractPollingContractIT.class) {
      if (withoutAutoCreate != null) {
        withoutAutoCreate.close();
        withoutAutoCreate = null;
      }
    }
  }

  private String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  /**
   * The bootstrap servers of a broker that answers but creates no topic by itself, so a send to a
   * topic that does not exist fails while Kafka works: the transient failure that belongs to the
   * event and counts as an attempt.
   */
  private static String brokerWithoutAutoCreate() {
    synchronized (AbstractPollingContractIT.class) {
      if (withoutAutoCreate == null) {
        withoutAutoCreate =
            KafkaBroker.builder().brokerProperty("auto.create.topics.enable", "false").start();
      }
      return withoutAutoCreate.bootstrapServers();
    }
  }

  private RelaySettings settings() {
    return RelaySettings.polling(db, bootstrap(), name);
  }

  private static RelaySettings shortLease(RelaySettings s) {
    for (String[] kv : SHORT_LEASE) {
      s.with(kv[0], kv[1]);
    }
    return s;
  }

  private RelayProcess process(String label, RelaySettings settings) {
    Path config = settings.writeTo(dir.resolve(label + ".properties"));
    RelayProcess p = RelayProcess.run(label, dir, config);
    processes.add(p);
    return p;
  }

  private Relay inProcess(RelaySettings settings) throws Exception {
    return relays.start(settings);
  }

  private TopicReader reader() {
    return topics.reader();
  }

  private TopicReader reader(String bootstrapServers) {
    return topics.on(bootstrapServers).reader();
  }

  private Ledger.Result awaitAll(Ledger ledger) {
    return awaitAll(ledger, bootstrap());
  }

  private Ledger.Result awaitAll(Ledger ledger, String bootstrapServers) {
    Ledger.Result result =
        ledger.check(topics.on(bootstrapServers).readAll(ledger, Duration.ofSeconds(120)));
    LOG.info("{} on {}: {}", name, db.flavor(), result.summary());
    return result;
  }

  private void write(Ledger ledger, List<TestEvent> tx) throws Exception {
    RawOutboxInserts.write(db, ledger, tx);
  }

  /** A backlog of {@code total} events over {@code aggregates} aggregates, 1-3 per transaction. */
  private void backlog(Ledger ledger, int total, int aggregates) throws Exception {
    backlog(ledger, total, new long[aggregates], new Random(7));
  }

  /** Writes more events, continuing each aggregate's sequence in {@code seq}. */
  private void backlog(Ledger ledger, int total, long[] seq, Random random) throws Exception {
    int aggregates = seq.length;
    try (Connection c = db.app()) {
      int written = 0;
      while (written < total) {
        List<TestEvent> tx = new ArrayList<>();
        for (int k = 1 + random.nextInt(3); k > 0 && written < total; k--, written++) {
          int a = random.nextInt(aggregates);
          tx.add(TestEvent.of(a % 4 == 0 ? "invoice" : "order", "agg-" + a, ++seq[a]));
        }
        RawOutboxInserts.writeTransaction(c, tx);
        ledger.expect(tx);
      }
    }
  }

  private long count(String where) {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE " + where))
        .longValue();
  }

  /** Stops the process while it holds a lease: PROCESSING rows exist while it is stopped. */
  private void pauseWhileItHoldsALease(RelayProcess p) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              if (count("status = 'PROCESSING'") == 0) {
                return false;
              }
              p.process().pause();
              if (count("status = 'PROCESSING'") > 0) {
                return true;
              }
              p.process().resume();
              return false;
            });
  }

  @Test
  void twoProcessesWithFourWorkersEachPublishEveryEventOnceInAggregateOrder() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    // Claims of 100 rows: eight workers race for the rows of four concurrent writers in some 80
    // claims, not the 16 that batches of 500 would make of them.
    process("relay-a", settings().with("polling.workers", "4").with("polling.batch.size", "100"));
    process("relay-b", settings().with("polling.workers", "4").with("polling.batch.size", "100"));
    int writers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      futures.add(
          pool.submit(
              () -> {
                // 125 aggregates per writer: each aggregate's commit order is its writer's order.
                Random random = new Random(writer);
                long[] seq = new long[125];
                try (Connection c = db.app()) {
                  for (int written = 0; written < PER_WRITER; ) {
                    List<TestEvent> tx = new ArrayList<>();
                    for (int k = 1 + random.nextInt(3);
                        k > 0 && written < PER_WRITER;
                        k--, written++) {
                      int a = random.nextInt(125);
                      tx.add(
                          TestEvent.of(
                              a % 5 == 0 ? "invoice" : "order",
                              "agg-" + writer + "-" + a,
                              ++seq[a]));
                    }
                    RawOutboxInserts.writeTransaction(c, tx);
                    ledger.expect(tx);
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get(5, TimeUnit.MINUTES);
    }
    pool.shutdown();

    Ledger.Result result = awaitAll(ledger);
    assertThat(ledger.size()).isEqualTo(4 * PER_WRITER);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(count("status = 'PUBLISHED'")).isEqualTo(4 * PER_WRITER);
    for (RelayProcess p : processes) {
      p.process().terminate();
      assertThat(p.waitFor(Duration.ofSeconds(60))).as(p.log()).isZero();
    }
  }

  @Test
  void anotherWorkerTakesOverAStalledLeaseAndTheStalledFinishIsReported() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    backlog(ledger, 3_000, 300);
    RelayProcess stalled =
        process(
            "stalled",
            shortLease(settings()).with("polling.workers", "1").with("polling.batch.size", "200"));
    pauseWhileItHoldsALease(stalled);
    long leased = count("status = 'PROCESSING'");

    process("rescuer", shortLease(settings()).with("polling.workers", "2"));
    reader().readUntil(ledger::allArrived, Duration.ofSeconds(120));
    await().atMost(Duration.ofSeconds(60)).until(() -> count("status = 'PUBLISHED'") == 3_000);
    stalled.process().resume();

    stalled
        .process()
        .awaitLogLine(
            ".*lost the lease on \\d+ events before finishing them.*", Duration.ofSeconds(60));
    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo((int) leased);
    assertThat(leased).isBetween(1L, 200L);
  }

  @Test
  void publishesEverythingAfterAProcessIsKilledMidBatch() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    backlog(ledger, 3_000, 300);
    RelayProcess killed =
        process(
            "killed",
            shortLease(settings()).with("polling.workers", "2").with("polling.batch.size", "200"));
    pauseWhileItHoldsALease(killed);
    long leased = count("status = 'PROCESSING'");
    killed.process().kill();
    killed.waitFor(Duration.ofSeconds(30));

    process("survivor", shortLease(settings()));
    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo((int) leased);
    assertThat(count("status = 'PUBLISHED'")).isEqualTo(3_000);
  }

  @Test
  void aKafkaOutageLongerThanTheRetryScheduleCostsNoAttemptAndLosesNothing() throws Exception {
    try (KafkaBroker broker = KafkaBroker.builder().start()) {
      Ledger ledger = ledger(RelaySettings.topicPrefix(name));
      // Three attempts of at most 3 s each with backoffs under a second: the old relay buried the
      // events written during the outage within about 12 s.
      RelayProcess relay =
          process(
              "relay",
              shortLease(RelaySettings.polling(db, broker.bootstrapServers(), name))
                  .with("polling.workers", "2")
                  .with("polling.max.attempts", "3")
                  .with("polling.retry.backoff.initial", "200ms")
                  .with("polling.retry.backoff.multiplier", "2")
                  .with("polling.retry.backoff.max", "1s"));
      long[] seq = new long[30];
      Random random = new Random(5);
      backlog(ledger, 200, seq, random);
      reader(broker.bootstrapServers()).readUntil(ledger::allArrived, Duration.ofSeconds(60));

      broker.stop();
      long linesBefore = relay.log().lines().count();
      backlog(ledger, 300, seq, random); // the same aggregates, during the outage
      await("the relay finds Kafka down")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  count("status = 'DEAD'") > 0
                      || relay.log().contains("Kafka (" + broker.bootstrapServers() + ") is"));
      assertThat(count("status = 'DEAD'")).as("events DEAD while Kafka was down").isZero();
      assertThat(relay.log()).contains("is unreachable since");
      // Twice what the retry schedule allows: nothing goes DEAD, no attempt is left counted.
      await()
          .during(Duration.ofSeconds(20))
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  count("status = 'DEAD'") == 0
                      && count("status <> 'PUBLISHED' AND attempts > 0") == 0);
      List<String> outageLog = relay.log().lines().skip(linesBefore).toList();
      LOG.info("{}: the relay's log during the outage:\n{}", name, String.join("\n", outageLog));
      broker.start();

      Ledger.Result result = awaitAll(ledger, broker.bootstrapServers());
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'PUBLISHED'") == 500);
      assertThat(count("status = 'DEAD'")).isZero();
      assertThat(count("attempts >= 3")).as("attempts left after the outage").isZero();
      relay
          .process()
          .awaitLogLine(
              ".*Kafka \\(.*\\) answers again after \\d+ s unreachable; claiming resumes.*",
              Duration.ofSeconds(30));
      // One WARN of the relay's own says it all; Kafka's clients stay quiet.
      assertThat(outageLog.stream().filter(l -> l.contains("NetworkClient")))
          .as(String.join("\n", outageLog))
          .isEmpty();
      assertThat(outageLog.stream().filter(l -> l.contains(" WARN ")))
          .as(String.join("\n", outageLog))
          .hasSize(1)
          .allSatisfy(l -> assertThat(l).contains("is unreachable since"));
      assertThat(outageLog.stream().filter(l -> !l.contains("StatsReporter")))
          .as("nothing else but the throughput line: %s", String.join("\n", outageLog))
          .hasSize(1);
    }
  }

  @Test
  void retriesOnTheDatabaseClockScheduleThenBuriesTheEventWithItsReason() throws Exception {
    // Kafka answers, but the event's topic does not exist and the broker creates none: every send
    // fails after max.block.ms, a failure that belongs to the event.
    inProcess(
        RelaySettings.polling(db, brokerWithoutAutoCreate(), name)
            .with("kafka.producer.max.block.ms", "300")
            .with("kafka.producer.delivery.timeout.ms", "1000")
            .with("kafka.producer.request.timeout.ms", "500")
            .with("polling.lease", "10s")
            .with("polling.max.attempts", "3")
            .with("polling.retry.backoff.initial", "1s")
            .with("polling.retry.backoff.multiplier", "2")
            .with("polling.retry.backoff.max", "10s")
            .with("polling.workers", "1"));
    write(new Ledger("x"), List.of(TestEvent.of("order", "o-1", 1)));

    // Sample the row and the database clock until the event is DEAD.
    record Sample(
        int attempts,
        String status,
        Timestamp nextAttemptAt,
        Timestamp leaseEnded,
        Timestamp dbNow) {}
    List<Sample> samples = new ArrayList<>();
    String now =
        db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
            ? "clock_timestamp()"
            : "NOW(6)";
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              Object[] row =
                  row(
                      "SELECT attempts, status, next_attempt_at, processing_until, "
                          + now
                          + " FROM outbox_events");
              samples.add(
                  new Sample(
                      ((Number) row[0]).intValue(),
                      (String) row[1],
                      ts(row[2]),
                      ts(row[3]),
                      ts(row[4])));
              return "DEAD".equals(row[1]);
            });

    Object[] dead = row("SELECT attempts, last_error FROM outbox_events");
    assertThat(((Number) dead[0]).intValue()).isEqualTo(3);
    assertThat((String) dead[1])
        .contains("failed 3 of 3 attempts")
        .contains("TimeoutException")
        .contains("not present in metadata");
    // After failure k the event waits about backoff(k) by the database clock (±20% jitter), and
    // is not claimed again before its next_attempt_at. The failure's own UPDATE ends the lease
    // (processing_until) and schedules the retry (next_attempt_at) on one clock reading, so the
    // wait is exact however late the sampling saw the row.
    for (int k = 1; k <= 2; k++) {
      int attempt = k;
      Sample firstPending =
          samples.stream()
              .filter(s -> s.attempts() == attempt && s.status().equals("PENDING"))
              .findFirst()
              .orElseThrow();
      long waitMs = firstPending.nextAttemptAt().getTime() - firstPending.leaseEnded().getTime();
      long backoff = 1000L << (k - 1);
      assertThat(waitMs)
          .as("wait after failure %d", k)
          .isBetween((long) (backoff * 0.8) - 2, (long) (backoff * 1.2) + 2);
      assertThat(firstPending.dbNow())
          .as("failure %d recorded on the database clock", k)
          .isAfterOrEqualTo(firstPending.leaseEnded());
      Sample reclaimed =
          samples.stream().filter(s -> s.attempts() == attempt + 1).findFirst().orElseThrow();
      assertThat(reclaimed.dbNow())
          .as("claim %d not before its time", k + 1)
          .isAfterOrEqualTo(firstPending.nextAttemptAt());
    }
  }

  @Test
  void buriesAnOversizedEventAtOnceWhileOtherAggregatesFlow() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    inProcess(settings().with("kafka.producer.max.request.size", "20000"));
    TestEvent big =
        new TestEvent(
            java.util.UUID.randomUUID().toString(),
            "order",
            "big",
            "Happened",
            1,
            "{\"blob\":\"" + "x".repeat(30_000) + "\"}");
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, List.of(big));
      RawOutboxInserts.writeTransaction(c, List.of(TestEvent.of("order", "big", 2)));
    }
    for (int i = 1; i <= 50; i++) {
      write(ledger, List.of(TestEvent.of("order", "small-" + (i % 5), i)));
    }

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as("nothing of aggregate 'big' reached Kafka").isZero();
    Object[] row =
        row(
            "SELECT status, attempts, last_error FROM outbox_events WHERE aggregate_id = 'big' ORDER BY id");
    assertThat(row[0]).isEqualTo("DEAD");
    assertThat(((Number) row[1]).intValue()).isEqualTo(1);
    assertThat((String) row[2]).contains("RecordTooLargeException");
    // A DEAD event holds back the later events of its aggregate (polling.dead.blocks.aggregate).
    assertThat(count("aggregate_id = 'big' AND status = 'PENDING'")).isEqualTo(1);
  }

  @Test
  void buriesAnEventWithANullPayloadInsteadOfPublishingATombstone() throws Exception {
    // A null value is a tombstone: on a compacted topic it would delete the aggregate's history.
    db.admin(
        db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
            ? "ALTER TABLE outbox_events ALTER COLUMN payload DROP NOT NULL"
            : "ALTER TABLE outbox_events MODIFY payload LONGTEXT NULL");
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    inProcess(settings());
    TestEvent nullPayload =
        new TestEvent(java.util.UUID.randomUUID().toString(), "order", "n", "Happened", 1, null);
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, List.of(nullPayload, TestEvent.of("order", "n", 2)));
    }
    for (int i = 1; i <= 20; i++) {
      write(ledger, List.of(TestEvent.of("order", "other-" + (i % 4), i)));
    }

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as("nothing of aggregate 'n' reached Kafka").isZero();
    Object[] row =
        row(
            "SELECT status, attempts, last_error FROM outbox_events WHERE aggregate_id = 'n' ORDER BY id");
    assertThat(row[0]).isEqualTo("DEAD");
    assertThat(((Number) row[1]).intValue()).isEqualTo(1);
    assertThat((String) row[2]).contains("payload is NULL: event_id=" + nullPayload.eventId());
    assertThat(count("aggregate_id = 'n' AND status = 'PENDING'")).isEqualTo(1);
  }

  @Test
  void eventsBlockedBehindADeadEventNeverHoldBackOtherAggregates() throws Exception {
    // More followers of a DEAD event than one claim window holds, all older than the rest: a
    // claim that looked only at the oldest pending rows would find nothing to take, forever.
    try (Connection c = db.app()) {
      for (int i = 1; i <= 60; i++) {
        RawOutboxInserts.writeTransaction(c, List.of(TestEvent.of("order", "stuck", i)));
      }
    }
    db.admin(
        "UPDATE outbox_events SET status = 'DEAD', last_error = 'poison (test)' WHERE id = (SELECT"
            + " m.id FROM (SELECT MIN(id) AS id FROM outbox_events) m)");
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    for (int i = 1; i <= 40; i++) {
      write(ledger, List.of(TestEvent.of("order", "free-" + (i % 8), i)));
    }
    inProcess(
        settings()
            .with("polling.workers", "2")
            .with("polling.batch.size", "5")
            .with("polling.claim.window", "20"));
    for (int i = 41; i <= 80; i++) {
      write(ledger, List.of(TestEvent.of("order", "free-" + (i % 8), i)));
    }

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as("nothing of aggregate 'stuck' reached Kafka").isZero();
    assertThat(count("aggregate_id = 'stuck' AND status = 'PENDING'")).isEqualTo(59);
    assertThat(count("aggregate_id = 'stuck' AND status = 'DEAD'")).isEqualTo(1);
  }

  @Test
  void publishesAnEventWhoseTransactionCommitsAfterHigherIdsWerePublished() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    inProcess(settings().with("polling.workers", "2"));
    write(ledger, List.of(TestEvent.of("order", "A", 1)));
    reader().readUntil(ledger::allArrived, Duration.ofSeconds(30));

    TestEvent late = TestEvent.of("order", "A", 2);
    try (Connection slow = db.app()) {
      RawOutboxInserts.insertWithoutCommit(slow, List.of(late)); // takes the lower id, commits last
      for (int i = 1; i <= 20; i++) {
        write(ledger, List.of(TestEvent.of("order", "B-" + i, 1)));
      }
      reader().readUntil(ledger::allArrived, Duration.ofSeconds(30));
      slow.commit();
    }
    ledger.expect(late);
    write(ledger, List.of(TestEvent.of("order", "A", 3)));

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
  }

  @Test
  void deletesOldPublishedRowsInSmallBatchesEvenBehindRowsPublishedLate() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    inProcess(
        settings()
            .with("polling.retention", "1h")
            .with("polling.retention.batch.size", "7")
            .with("polling.retention.interval", "1s"));
    for (int i = 1; i <= 30; i++) {
      write(ledger, List.of(TestEvent.of("order", "r-" + i, 1)));
    }
    awaitAll(ledger);
    await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'PUBLISHED'") == 30);
    String twoHoursAgo =
        db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
            ? "clock_timestamp() - interval '2 hours'"
            : "NOW(6) - INTERVAL 2 HOUR";
    // r-1..r-29 were written two hours ago; r-10..r-29 were published then too, while r-1..r-9
    // (more than one retention window) were published just now, as retried or requeued events
    // are. r-30 is DEAD.
    db.admin(
        "UPDATE outbox_events SET created_at = " + twoHoursAgo + " WHERE " + rows(1, 29),
        "UPDATE outbox_events SET published_at = " + twoHoursAgo + " WHERE " + rows(10, 29),
        "UPDATE outbox_events SET status = 'DEAD' WHERE aggregate_id = 'r-30'");

    await().atMost(Duration.ofSeconds(30)).until(() -> count("1 = 1") == 10);
    assertThat(count("status = 'PUBLISHED'")).isEqualTo(9);
    assertThat(count("status = 'PUBLISHED' AND " + rows(1, 9))).isEqualTo(9);
    assertThat(count("status = 'DEAD'")).isEqualTo(1);
  }

  /** A predicate for the test's rows r-{from}..r-{to}. */
  private static String rows(int from, int to) {
    return "aggregate_id IN ("
        + String.join(
            ",",
            java.util.stream.IntStream.rangeClosed(from, to)
                .mapToObj(i -> "'r-" + i + "'")
                .toList())
        + ")";
  }

  /**
   * Environment that runs a child JVM with its wall clock moved by {@code offset} (libfaketime).
   */
  private static java.util.Map<String, String> skewedClock(String offset) {
    java.io.File[] libs = new java.io.File("/usr/lib").listFiles();
    String lib = null;
    for (java.io.File dir : libs == null ? new java.io.File[0] : libs) {
      java.io.File candidate = new java.io.File(dir, "faketime/libfaketime.so.1");
      if (candidate.exists()) {
        lib = candidate.getPath();
      }
    }
    if (lib == null) {
      throw new IllegalStateException("libfaketime is missing: run scripts/ensure-prereqs.sh");
    }
    // The monotonic clock moves by the same offset, which changes no duration; faking only the
    // wall clock (FAKETIME_DONT_FAKE_MONOTONIC) makes the JVM's timed waits unreliable.
    return java.util.Map.of("LD_PRELOAD", lib, "FAKETIME", offset);
  }

  private RelayProcess skewedProcess(
      String label, RelaySettings settings, String offset, long days) {
    Path config = settings.writeTo(dir.resolve(label + ".properties"));
    RelayProcess p =
        RelayProcess.start(label, dir, skewedClock(offset), "run", "--config", config.toString());
    processes.add(p);
    p.awaitReady();
    // The relay's own log lines carry its (skewed) wall clock.
    String day = java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(days).toString();
    assertThat(p.log()).as("the JVM clock of %s is off by %s", label, offset).contains(day + "T");
    return p;
  }

  @Test
  void workersWhoseClocksAreDaysOffLeaseAndRetryByTheDatabaseClock() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    String dbNow =
        db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
            ? "clock_timestamp()"
            : "NOW(6)";
    String leaseLeftMs =
        db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
            ? "EXTRACT(EPOCH FROM (processing_until - clock_timestamp())) * 1000"
            : "TIMESTAMPDIFF(MICROSECOND, NOW(6), processing_until) / 1000";
    skewedProcess("ahead", shortLease(settings()).with("polling.batch.size", "50"), "+3d", 3);
    skewedProcess("behind", shortLease(settings()).with("polling.batch.size", "50"), "-2d", -2);

    // Events arrive while both work; every lease they take ends within polling.lease (10 s) of
    // the database's now.
    ExecutorService writer = Executors.newSingleThreadExecutor();
    Future<?> writing =
        writer.submit(
            () -> {
              long[] seq = new long[200];
              Random random = new Random(11);
              for (int i = 0; i < 40; i++) {
                backlog(ledger, 50, seq, random);
                Thread.sleep(100);
              }
              return null;
            });
    List<Double> leaseLeft = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              Object left =
                  db.adminQuery(
                      "SELECT MAX("
                          + leaseLeftMs
                          + ") FROM outbox_events WHERE status = 'PROCESSING'");
              if (left != null) {
                leaseLeft.add(((Number) left).doubleValue());
              }
              return writing.isDone() && count("status = 'PUBLISHED'") == 2_000;
            });
    writing.get();
    writer.shutdown();
    assertThat(leaseLeft)
        .isNotEmpty()
        .allSatisfy(ms -> assertThat(ms).isBetween(-1_000.0, 10_500.0));
    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    Object publishedDrift =
        db.adminQuery(
            db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
                ? "SELECT MAX(ABS(EXTRACT(EPOCH FROM (published_at - clock_timestamp())))) FROM outbox_events"
                : "SELECT MAX(ABS(TIMESTAMPDIFF(SECOND, published_at, NOW(6)))) FROM outbox_events");
    assertThat(((Number) publishedDrift).doubleValue())
        .as("published_at is the database's time")
        .isLessThan(300);

    // A worker 3 days ahead retries by the database clock: about 1 s after a failure, not never.
    // The event's topic does not exist on a broker that creates none.
    String noTopics = brokerWithoutAutoCreate();
    for (RelayProcess p : processes) {
      p.process().terminate();
      p.waitFor(Duration.ofSeconds(60));
    }
    write(new Ledger("x"), List.of(TestEvent.of("retry", "late-1", 1)));
    skewedProcess(
        "ahead-no-topic",
        RelaySettings.polling(db, noTopics, name)
            .with("kafka.producer.max.block.ms", "300")
            .with("kafka.producer.delivery.timeout.ms", "1000")
            .with("kafka.producer.request.timeout.ms", "500")
            .with("polling.lease", "10s")
            .with("polling.retry.backoff.initial", "1s")
            .with("polling.retry.backoff.multiplier", "2"),
        "+3d",
        3);
    // The wait as scheduled (next_attempt_at less the failure's lease end, one UPDATE), and how
    // far ahead of the database's now the retry lies when first seen: neither may carry the
    // worker's 3 days.
    boolean pg = db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL;
    String waitMs =
        pg
            ? "EXTRACT(EPOCH FROM (next_attempt_at - processing_until)) * 1000"
            : "TIMESTAMPDIFF(MICROSECOND, processing_until, next_attempt_at) / 1000";
    String aheadMs =
        pg
            ? "EXTRACT(EPOCH FROM (next_attempt_at - clock_timestamp())) * 1000"
            : "TIMESTAMPDIFF(MICROSECOND, NOW(6), next_attempt_at) / 1000";
    String firstFailure =
        " FROM outbox_events WHERE aggregate_id = 'late-1' AND status = 'PENDING' AND attempts = 1";
    List<double[]> waits = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              Object ahead = db.adminQuery("SELECT " + aheadMs + firstFailure);
              Object w = db.adminQuery("SELECT " + waitMs + firstFailure);
              if (ahead != null && w != null) {
                waits.add(
                    new double[] {((Number) w).doubleValue(), ((Number) ahead).doubleValue()});
              }
              return count("aggregate_id = 'late-1' AND attempts >= 2") == 1;
            });
    assertThat(waits).as("the first retry is about 1 s away by the database clock").isNotEmpty();
    assertThat(waits.get(0)[0]).as("scheduled wait, ms").isBetween(798.0, 1_202.0);
    assertThat(waits.get(0)[1]).as("retry ahead of the database's now, ms").isLessThan(1_202.0);
    assertThat(dbNow).isNotEmpty();
  }

  private Object[] row(String sql) {
    // adminQuery returns one column; fetch each column of the first row.
    String select = sql.substring("SELECT ".length(), sql.indexOf(" FROM "));
    String rest = sql.substring(sql.indexOf(" FROM "));
    String[] columns = select.split(", ");
    Object[] values = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      values[i] = db.adminQuery("SELECT " + columns[i] + rest);
    }
    return values;
  }

  private static Timestamp ts(Object o) {
    if (o == null) {
      return null;
    }
    if (o instanceof Timestamp t) {
      return t;
    }
    if (o instanceof java.time.OffsetDateTime odt) {
      return Timestamp.from(odt.toInstant());
    }
    if (o instanceof java.time.LocalDateTime ldt) {
      return Timestamp.valueOf(ldt);
    }
    throw new IllegalArgumentException(
        "not a timestamp: " + o + " (" + (o == null ? null : o.getClass()) + ")");
  }

  @Test
  void publishesAggregateVersionsAsHeadersAndReportsVersionsThatGoBackwardsOrSkipAhead()
      throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    VersionScenario scenario = new VersionScenario();
    try (Connection c = db.app()) {
      scenario.write(c, ledger);
    }
    Relay relay = inProcess(settings().with("router.version.check", "contiguous"));

    reader().readUntil(ledger::allArrived, Duration.ofSeconds(60));
    scenario.check(
        ledger,
        reader().readAll(Duration.ofSeconds(2), Duration.ofSeconds(60)),
        relay.metrics(),
        true);
  }

  @Test
  void publishesATableWithoutTheVersionColumnAsBeforeAndItsVersionsOnceMigratedAndRestarted()
      throws Exception {
    db.admin("ALTER TABLE outbox_events DROP COLUMN aggregate_version");
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    backlog(ledger, 30, 3);
    Relay first = inProcess(settings().with("router.version.check", "contiguous"));
    List<ConsumedRecord> unversioned =
        reader().readUntil(ledger::allArrived, Duration.ofSeconds(60));
    Ledger.Result result = ledger.check(unversioned);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    VersionScenario.checkNoVersionHeaders(unversioned);
    first.close();

    // The shipped migration; a polling relay looks for the column when it starts.
    db.admin(
        ProjectFiles.sqlStatements(
                db.flavor().configDir() + "/migrations/004-add-aggregate-version.sql")
            .toArray(String[]::new));
    TestEvent versioned = TestEvent.of("order", "agg-1", 100);
    try (Connection c = db.app()) {
      RawOutboxInserts.writeVersioned(c, versioned, 7L);
    }
    inProcess(settings());

    assertThat(
            reader()
                .readUntil(
                    r -> r.stream().anyMatch(c -> versioned.eventId().equals(c.header("id"))),
                    Duration.ofSeconds(60)))
        .filteredOn(r -> versioned.eventId().equals(r.header("id")))
        .singleElement()
        .satisfies(r -> assertThat(r.header("aggregate_version")).isEqualTo("7"));
  }

  /** Inserts events with their headers column (null for SQL NULL), in one transaction. */
  private void writeWithHeaders(Ledger ledger, List<TestEvent> events, List<String> headers)
      throws Exception {
    try (Connection c = db.app();
        java.sql.PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type,"
                    + " payload, headers) VALUES (?, ?, ?, ?, ?, ?)")) {
      for (int i = 0; i < events.size(); i++) {
        TestEvent e = events.get(i);
        ps.setString(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, e.payload());
        ps.setString(6, headers.get(i));
        ps.addBatch();
      }
      ps.executeBatch();
      c.commit();
    }
    if (ledger != null) {
      ledger.expect(events);
    }
  }

  private boolean postgres() {
    return db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL;
  }

  @Test
  void publishesApplicationHeadersAfterTheRelaysOwnInTheColumnsMemberOrder() throws Exception {
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    TestEvent a = TestEvent.of("order", "h-1", 1);
    TestEvent b = TestEvent.of("order", "h-1", 2);
    TestEvent c = TestEvent.of("order", "h-1", 3);
    writeWithHeaders(
        ledger,
        List.of(a, b, c),
        java.util.Arrays.asList(
            "{\"tenant\": \"acme\", \"zz\": \"caf\\u00e9\", \"a\": \"\"}", null, "{}"));
    inProcess(settings());

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    List<ConsumedRecord> records = reader().readAll(Duration.ofSeconds(1));
    ConsumedRecord first =
        records.stream().filter(r -> a.eventId().equals(r.header("id"))).findFirst().orElseThrow();
    List<String> names = new ArrayList<>(first.headers().keySet());
    assertThat(names.subList(0, 4))
        .containsExactly("id", "event_type", "aggregate_type", "aggregate_id");
    // MariaDB keeps the JSON text as written; jsonb orders members shorter names first.
    assertThat(names.subList(4, names.size()))
        .containsExactlyElementsOf(
            postgres() ? List.of("a", "zz", "tenant") : List.of("tenant", "zz", "a"));
    assertThat(first.header("zz")).isEqualTo("caf\u00e9");
    assertThat(first.header("a")).isEmpty();
    for (TestEvent e : List.of(b, c)) {
      assertThat(
              records.stream()
                  .filter(r -> e.eventId().equals(r.header("id")))
                  .findFirst()
                  .orElseThrow()
                  .headers())
          .hasSize(4);
    }
  }

  @Test
  void buriesEventsWhoseHeadersBreakTheContractWithTheReasonWhileOtherAggregatesFlow()
      throws Exception {
    // A text column, so that the application can write text that is not JSON at all.
    db.admin(
        postgres()
            ? "ALTER TABLE outbox_events ALTER COLUMN headers TYPE text"
            : "ALTER TABLE outbox_events MODIFY headers LONGTEXT NULL");
    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    TestEvent reserved = TestEvent.of("order", "bad-1", 1);
    TestEvent reservedNext = TestEvent.of("order", "bad-1", 2);
    TestEvent number = TestEvent.of("order", "bad-2", 1);
    TestEvent notJson = TestEvent.of("order", "bad-3", 1);
    writeWithHeaders(
        null,
        List.of(reserved, reservedNext, number, notJson),
        java.util.Arrays.asList(
            "{\"email\":\"alice@example.com\",\"aggregate_type\":\"spoofed\"}",
            null,
            "{\"attempt\": 3}",
            "tenant=acme"));
    for (int i = 1; i <= 20; i++) {
      write(ledger, List.of(TestEvent.of("order", "good-" + (i % 4), 1 + (i - 1) / 4)));
    }
    inProcess(settings());

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as("nothing of the bad aggregates reached Kafka").isZero();
    await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'DEAD'") == 3);
    assertThat((String) db.adminQuery(lastError(reserved)))
        .contains("header name 'aggregate_type' is reserved")
        .doesNotContain("alice");
    assertThat((String) db.adminQuery(lastError(number)))
        .contains("the value of header 'attempt' is a JSON number, not a JSON string");
    assertThat((String) db.adminQuery(lastError(notJson)))
        .contains("it is not JSON: expected '{' at offset 0");
    assertThat(
            ((Number)
                    db.adminQuery(
                        "SELECT attempts FROM outbox_events WHERE event_id = '"
                            + reserved.eventId()
                            + "'"))
                .intValue())
        .as("poison: never retried")
        .isEqualTo(1);
    // The aggregate's later event waits behind its DEAD one (polling.dead.blocks.aggregate).
    assertThat(count("aggregate_id = 'bad-1' AND status = 'PENDING'")).isEqualTo(1);
  }

  private static String lastError(TestEvent e) {
    return "SELECT last_error FROM outbox_events WHERE event_id = '" + e.eventId() + "'";
  }
}
