package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.relay.testing.VersionScenario;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The CDC contract: what every supported database must do, checked against a real database and a
 * real Kafka broker. A subclass of about twenty lines supplies the database and the broker.
 */
abstract class AbstractCdcContractIT {

  /** A fresh outbox database on the database under test. */
  protected abstract OutboxDatabase newDatabase();

  /** The Kafka broker under test. */
  protected abstract String bootstrapServers();

  protected OutboxDatabase db;
  protected String name;
  private TestTopics topics;
  private final InProcessRelays relays = new InProcessRelays();

  @BeforeEach
  void setUp(TestInfo info) {
    db = newDatabase();
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(bootstrapServers(), "cdc", method, 20);
    name = topics.name();
  }

  @AfterEach
  void tearDown() {
    relays.close();
    if (db != null) {
      db.close();
    }
  }

  protected RelaySettings settings() {
    return RelaySettings.cdc(db, bootstrapServers(), name);
  }

  protected Relay startRelay(RelaySettings settings) throws Exception {
    return relays.start(settings);
  }

  protected void stopRelay(Relay relay) {
    relays.stop(relay);
  }

  /** A ledger of this test's events; its payload check is the database's (jsonb: by meaning). */
  protected Ledger ledger() {
    return new Ledger(topicPrefix());
  }

  protected TopicReader reader() {
    return topics.reader();
  }

  protected String topicPrefix() {
    return topics.prefix();
  }

  /** Waits until every expected event arrived, then reads on until the topics stay quiet. */
  protected List<ConsumedRecord> awaitAll(Ledger ledger) {
    return topics.readAll(ledger, Duration.ofSeconds(90));
  }

  protected void write(Ledger ledger, List<TestEvent> transaction) throws Exception {
    RawOutboxInserts.write(db, ledger, transaction);
  }

  @Test
  void publishesEveryEventOfConcurrentTransactionsOnceInCommitOrderPerAggregate() throws Exception {
    startRelay(settings());
    Ledger ledger = ledger();
    int threads = 6;
    int aggregatesPerThread = 30;
    int transactionsPerThread = 120;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                // Each aggregate belongs to one writer thread, so its commit order is that
                // thread's program order; transactions mix aggregates and hold 1-4 events.
                Random random = new Random(thread);
                long[] seq = new long[aggregatesPerThread];
                try (Connection c = db.app()) {
                  for (int i = 0; i < transactionsPerThread; i++) {
                    List<TestEvent> tx = new ArrayList<>();
                    int size = 1 + random.nextInt(4);
                    for (int k = 0; k < size; k++) {
                      int a = random.nextInt(aggregatesPerThread);
                      String type = a % 3 == 0 ? "invoice" : "order";
                      tx.add(TestEvent.of(type, "agg-" + thread + "-" + a, ++seq[a]));
                    }
                    RawOutboxInserts.writeTransaction(c, tx);
                    ledger.expect(tx);
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();

    List<ConsumedRecord> records = awaitAll(ledger);
    Ledger.Result result = ledger.check(records);

    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(records)
        .extracting(ConsumedRecord::topic)
        .containsOnly(topicPrefix() + "order", topicPrefix() + "invoice");
  }

  @Test
  void publishesRowsInsertedWhileStoppedAfterRestartAndRepublishesNothing() throws Exception {
    Ledger ledger = ledger();
    Relay first = startRelay(settings());
    for (int i = 1; i <= 50; i++) {
      write(ledger, List.of(TestEvent.of("order", "o-" + (i % 7), i)));
    }
    reader().readUntil(ledger::allArrived, Duration.ofSeconds(60));
    stopRelay(first);

    for (int i = 51; i <= 150; i++) {
      write(
          ledger,
          List.of(
              TestEvent.of("order", "o-" + (i % 7), i),
              TestEvent.of("invoice", "i-" + (i % 5), i)));
    }
    startRelay(settings());

    Ledger.Result result = ledger.check(awaitAll(ledger));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  @Test
  void publishesNothingForUpdatesAndDeletesOfOutboxRows() throws Exception {
    Ledger ledger = ledger();
    startRelay(settings());
    for (int i = 1; i <= 20; i++) {
      write(ledger, List.of(TestEvent.of("order", "o-1", i)));
    }
    reader().readUntil(ledger::allArrived, Duration.ofSeconds(60));

    db.admin(
        "UPDATE outbox_events SET status = 'PUBLISHED', payload = '{\"changed\":true}' WHERE id % 2 = 0",
        "DELETE FROM outbox_events WHERE id % 3 = 0");
    write(ledger, List.of(TestEvent.of("order", "o-1", 21))); // a marker after the changes

    Ledger.Result result = ledger.check(awaitAll(ledger));
    assertThat(result.received()).as(result.summary()).isEqualTo(21);
    assertThat(result.lost()).isZero();
    assertThat(result.duplicates()).isZero();
    assertThat(result.mismatches()).isEmpty();
  }

  /**
   * Debezium's streaming metrics keep no rendering of each event (its position and key as text,
   * made for every event on the reading thread): their {@code LastEvent} names the table only, and
   * their counters count.
   */
  @Test
  void keepsDebeziumFromRenderingEveryEventAsText() throws Exception {
    Ledger ledger = ledger();
    startRelay(settings());
    for (int i = 1; i <= 3; i++) {
      write(ledger, List.of(TestEvent.of("order", "o-1", i)));
    }
    reader().readUntil(ledger::allArrived, Duration.ofSeconds(60));

    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> streaming =
        jmx.queryNames(
            new ObjectName("debezium.*:type=connector-metrics,context=streaming,*"), null);
    streaming.removeIf(
        n ->
            !name.equals(n.getKeyProperty("server"))
                && !ObjectName.quote(name).equals(n.getKeyProperty("server")));
    assertThat(streaming).as("Debezium's streaming metrics of " + name).hasSize(1);
    ObjectName metrics = streaming.iterator().next();
    // Debezium's rendering: "position: {...}, key: ..., after: ..." (EventFormatter).
    assertThat(jmx.getAttribute(metrics, "LastEvent"))
        .asString()
        .doesNotContain("position: {")
        .doesNotContain("key: ");
    assertThat((Long) jmx.getAttribute(metrics, "TotalNumberOfCreateEventsSeen"))
        .isGreaterThanOrEqualTo(3);
  }

  @Test
  void publishesRowsThatExistedBeforeTheFirstStartWhenAskedToSnapshot() throws Exception {
    Ledger ledger = ledger();
    for (int i = 1; i <= 40; i++) {
      write(ledger, List.of(TestEvent.of("order", "pre-" + (i % 4), i)));
    }

    startRelay(settings().with("debezium.snapshot.mode", "initial"));
    for (int i = 41; i <= 60; i++) {
      write(ledger, List.of(TestEvent.of("order", "pre-" + (i % 4), i)));
    }

    Ledger.Result result = ledger.check(awaitAll(ledger));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  @Test
  void startsFromTheCurrentPositionAndMissesNothingCommittedAfterReady() throws Exception {
    Ledger before = ledger();
    for (int i = 1; i <= 30; i++) {
      write(before, List.of(TestEvent.of("order", "old-" + i, 1)));
    }

    // A writer commits continuously across the relay's start; every event whose commit
    // returned after start() returned (the relay reported ready) must be published.
    Ledger afterReady = ledger();
    ConcurrentLinkedQueue<TestEvent> committedAfterReady = new ConcurrentLinkedQueue<>();
    AtomicBoolean ready = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    Future<?> writer =
        Executors.newSingleThreadExecutor()
            .submit(
                () -> {
                  long seq = 0;
                  try (Connection c = db.app()) {
                    while (!stop.get()) {
                      boolean readyBefore = ready.get();
                      TestEvent e = TestEvent.of("order", "live", ++seq);
                      RawOutboxInserts.writeTransaction(c, List.of(e));
                      if (readyBefore) {
                        committedAfterReady.add(e);
                      }
                    }
                  }
                  return null;
                });
    // skip: the rows already in the table are not published (the default publishes them, see
    // CdcFirstStartIT); the relay starts from the binlog position of its first start's snapshot.
    startRelay(settings().with("cdc.first.start", "skip"));
    ready.set(true);
    Thread.sleep(1500); // let the writer commit for a while after ready
    stop.set(true);
    writer.get();
    afterReady.expect(new ArrayList<>(committedAfterReady));

    List<ConsumedRecord> records =
        reader().readUntil(afterReady::allArrived, Duration.ofSeconds(60));
    Ledger.Result result = afterReady.check(records);
    assertThat(committedAfterReady).hasSizeGreaterThan(10);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(records).noneMatch(r -> r.keyAsString().startsWith("old-"));
  }

  @Test
  void publishesAggregateVersionsAsHeadersAndReportsVersionsThatGoBackwardsOrSkipAhead()
      throws Exception {
    Relay relay = startRelay(settings().with("router.version.check", "contiguous"));
    Ledger ledger = ledger();
    VersionScenario scenario = new VersionScenario();
    try (Connection c = db.app()) {
      scenario.write(c, ledger);
    }

    scenario.check(ledger, awaitAll(ledger), relay.metrics(), true);
  }

  @Test
  void publishesATableWithoutTheVersionColumnAsBeforeAndItsVersionsOnceTheMigrationAddsIt()
      throws Exception {
    db.admin("ALTER TABLE outbox_events DROP COLUMN aggregate_version");
    startRelay(settings().with("router.version.check", "contiguous"));
    Ledger before = ledger();
    for (int i = 1; i <= 5; i++) {
      write(before, List.of(TestEvent.of("order", "u-1", i)));
    }
    List<ConsumedRecord> unversioned = awaitAll(before);
    Ledger.Result result = before.check(unversioned);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    VersionScenario.checkNoVersionHeaders(unversioned);

    // The shipped migration, while the relay streams: the ALTER comes through the log.
    db.admin(
        ProjectFiles.sqlStatements(
                db.flavor().configDir() + "/migrations/004-add-aggregate-version.sql")
            .toArray(String[]::new));
    Ledger after = ledger();
    TestEvent versioned = TestEvent.of("order", "u-1", 6);
    try (Connection c = db.app()) {
      RawOutboxInserts.writeVersioned(c, versioned, 6L);
    }
    after.expect(versioned);

    List<ConsumedRecord> records = reader().readUntil(after::allArrived, Duration.ofSeconds(60));
    assertThat(records)
        .filteredOn(r -> versioned.eventId().equals(r.header("id")))
        .singleElement()
        .satisfies(r -> assertThat(r.header("aggregate_version")).isEqualTo("6"));
  }
}
