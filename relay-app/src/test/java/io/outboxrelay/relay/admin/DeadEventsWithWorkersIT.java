package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code dead requeue} and {@code dead skip} while polling workers run, against MariaDB and a real
 * Kafka broker: every event is checked by id and by its place in its aggregate.
 */
class DeadEventsWithWorkersIT {

  private static final Logger LOG = LoggerFactory.getLogger(DeadEventsWithWorkersIT.class);

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private String name;
  private String config;
  private final InProcessRelays relays = new InProcessRelays();
  private final ExecutorService writer = Executors.newSingleThreadExecutor();

  @BeforeEach
  void setUp() {
    db = OutboxDatabase.forPolling();
    topics = TestTopics.fresh(bootstrap(), "dead");
    name = topics.name();
  }

  @AfterEach
  void tearDown() {
    writer.shutdownNow();
    relays.close();
    db.close();
  }

  private String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private RelaySettings settings() {
    RelaySettings s = RelaySettings.polling(db, bootstrap(), name).with("polling.workers", "4");
    config = s.writeTo(dir.resolve("relay.properties")).toString();
    return s;
  }

  private Relay start(RelaySettings settings) throws Exception {
    return relays.start(settings);
  }

  private TopicReader reader() {
    return topics.reader();
  }

  private void write(Ledger ledger, TestEvent... events) throws Exception {
    try (Connection c = db.app()) {
      for (TestEvent e : events) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
        if (ledger != null) {
          ledger.expect(e);
        }
      }
    }
  }

  private void bury(TestEvent e) {
    db.admin(
        "UPDATE outbox_events SET status = 'DEAD', attempts = 5, last_error = 'poison (test)'"
            + " WHERE event_id = '"
            + e.eventId()
            + "'");
  }

  private long count(String where) {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE " + where))
        .longValue();
  }

  private long id(TestEvent e) {
    return ((Number)
            db.adminQuery("SELECT id FROM outbox_events WHERE event_id = '" + e.eventId() + "'"))
        .longValue();
  }

  private Cli.Result admin(String... args) {
    return Cli.expect(0, args);
  }

  private Ledger.Result awaitAll(Ledger ledger) {
    return topics.check(ledger, Duration.ofSeconds(120));
  }

  /** The event ids of one aggregate's records, in the order Kafka keeps them. */
  private List<String> arrivals(List<ConsumedRecord> records, String aggregateId) {
    return records.stream()
        .filter(r -> aggregateId.equals(r.keyAsString()))
        .map(r -> r.header("id"))
        .toList();
  }

  @Test
  void requeueWhileFourWorkersRunPublishesEachEventOnceAndBeforeItsFollowers() throws Exception {
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    int stuck = 4;
    List<TestEvent> heads = new ArrayList<>();
    long[] seq = new long[stuck];
    for (int a = 0; a < stuck; a++) {
      TestEvent head = TestEvent.of("order", "stuck-" + a, ++seq[a]);
      heads.add(head);
      write(ledger, head, TestEvent.of("order", "stuck-" + a, ++seq[a]));
      bury(head);
    }
    start(settings());

    // Followers of the DEAD heads and other aggregates keep coming while the operator acts.
    Future<?> load =
        writer.submit(
            () -> {
              Random random = new Random(3);
              long[] free = new long[20];
              try (Connection c = db.app()) {
                for (int i = 0; i < 1500; i++) {
                  TestEvent e;
                  if (i % 10 == 0) {
                    int a = random.nextInt(stuck);
                    e = TestEvent.of("order", "stuck-" + a, ++seq[a]);
                  } else {
                    int a = random.nextInt(free.length);
                    e = TestEvent.of(a % 2 == 0 ? "order" : "invoice", "free-" + a, ++free[a]);
                  }
                  RawOutboxInserts.writeTransaction(c, List.of(e));
                  ledger.expect(e);
                  TimeUnit.MILLISECONDS.sleep(2); // a steady stream over a few seconds
                }
              }
              return null;
            });

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count("status = 'PUBLISHED' AND aggregate_id LIKE 'free-%'") >= 200);
    assertThat(count("status = 'PUBLISHED' AND aggregate_id LIKE 'stuck-%'"))
        .as("a DEAD event holds back its aggregate")
        .isZero();
    assertThat(load.isDone()).as("the writer is still writing").isFalse();

    // By row id and by event id, and by filter.
    admin(
        "dead",
        "requeue",
        "--config",
        config,
        String.valueOf(id(heads.get(0))),
        heads.get(1).eventId());
    admin("dead", "requeue", "--config", config, "--aggregate-id", "stuck-2");
    admin("dead", "requeue", "--config", config, "--aggregate-type", "order", "--all");
    load.get(120, TimeUnit.SECONDS);

    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    List<ConsumedRecord> records = reader().readAll(Duration.ofSeconds(1));
    for (int a = 0; a < stuck; a++) {
      List<String> order = arrivals(records, "stuck-" + a);
      assertThat(order.get(0))
          .as("stuck-%d starts with its requeued head", a)
          .isEqualTo(heads.get(a).eventId());
      assertThat(order).as("stuck-%d: each event once", a).doesNotHaveDuplicates();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> count("status <> 'PUBLISHED'") == 0);
  }

  @Test
  void withDeadEventsNotBlockingTheFollowersPublishedBeforeARequeueStayAheadAndLaterOnesWait()
      throws Exception {
    TestEvent x1 = TestEvent.of("order", "x", 1);
    TestEvent x2 = TestEvent.of("order", "x", 2);
    TestEvent x3 = TestEvent.of("order", "x", 3);
    write(null, x1, x2, x3);
    bury(x1);
    RelaySettings settings = settings().with("polling.dead.blocks.aggregate", "false");
    Relay relay = start(settings);
    reader()
        .readUntil(
            r -> arrivals(r, "x").containsAll(List.of(x2.eventId(), x3.eventId())),
            Duration.ofSeconds(60));

    // Requeued while the workers run: published once, after the followers that went past it.
    admin("dead", "requeue", "--config", config, x1.eventId());
    TestEvent x4 = TestEvent.of("order", "x", 4);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("status = 'PUBLISHED' AND aggregate_id = 'x'") == 3);
    write(null, x4);
    List<ConsumedRecord> records =
        reader().readUntil(r -> arrivals(r, "x").size() >= 4, Duration.ofSeconds(60));
    assertThat(arrivals(records, "x"))
        .containsExactly(x2.eventId(), x3.eventId(), x1.eventId(), x4.eventId());

    // Followers still waiting when it is requeued wait for it: stop the workers so that y2 is
    // still pending at the requeue, as it would be behind a claim or a retry.
    relay.close();
    TestEvent y1 = TestEvent.of("order", "y", 1);
    TestEvent y2 = TestEvent.of("order", "y", 2);
    write(null, y1, y2);
    bury(y1);
    admin("dead", "requeue", "--config", config, y1.eventId());
    start(settings);
    records = reader().readUntil(r -> arrivals(r, "y").size() >= 2, Duration.ofSeconds(60));
    assertThat(arrivals(records, "y")).containsExactly(y1.eventId(), y2.eventId());
    assertThat(arrivals(reader().readAll(Duration.ofSeconds(2)), "x")).hasSize(4);
  }

  @Test
  void aSkippedEventIsNeverPublishedItsFollowersAreAndRetentionKeepsIt() throws Exception {
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    TestEvent s1 = TestEvent.of("order", "s", 1);
    TestEvent s2 = TestEvent.of("order", "s", 2);
    TestEvent s3 = TestEvent.of("order", "s", 3);
    write(null, s1);
    write(ledger, s2, s3);
    bury(s1);
    start(settings().with("polling.retention", "1ms").with("polling.retention.interval", "1s"));
    for (int i = 1; i <= 30; i++) {
      write(ledger, TestEvent.of("order", "f-" + (i % 3), i));
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count("aggregate_id LIKE 'f-%'") == 0); // published, then deleted
    assertThat(count("aggregate_id = 's' AND status = 'PENDING'")).isEqualTo(2);

    admin("dead", "skip", "--config", config, s1.eventId(), "--reason", "refunded by hand");
    Ledger.Result result = awaitAll(ledger);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as("s1 never reaches Kafka: " + result.summary()).isZero();
    assertThat(arrivals(reader().readAll(Duration.ofSeconds(2)), "s"))
        .containsExactly(s2.eventId(), s3.eventId());

    // Retention deletes the published rows and keeps the skipped one, with its reason.
    await().atMost(Duration.ofSeconds(30)).until(() -> count("1 = 1") == 1);
    assertThat(
            db.adminQuery(
                "SELECT last_error FROM outbox_events WHERE status = 'SKIPPED' AND event_id = '"
                    + s1.eventId()
                    + "'"))
        .asString()
        .startsWith("skipped by operator ")
        .contains(": refunded by hand | was DEAD: poison (test)");
  }
}
