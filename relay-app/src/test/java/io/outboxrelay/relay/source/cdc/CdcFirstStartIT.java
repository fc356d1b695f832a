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
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first start of a CDC relay (no stored position), run from its distribution on the private
 * MariaDB and the broker: the events the application committed before the relay ever ran, and those
 * it commits while the relay starts, are each published once, in per-aggregate order ({@code
 * cdc.first.start=publish}, the default); with {@code skip} none of those already in the table is,
 * and one INFO line says how many were skipped.
 */
class CdcFirstStartIT {

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private SteadyWriter writer;
  private final InProcessRuns runs = new InProcessRuns();

  @BeforeEach
  void setUp(TestInfo info) {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "first", method, 16);
  }

  @AfterEach
  void tearDown() {
    if (writer != null) {
      writer.close();
    }
    runs.close(); // before the database: a live relay blocks its drop
    db.close();
  }

  private RelayRun run(String label, RelaySettings settings) {
    RelayRun p =
        runs.run(label, dir, settings.writeTo(dir.resolve(label + ".properties")).toString());
    p.awaitReady();
    return p;
  }

  private static List<TestEvent> existing(int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(TestEvent.of("order", "before-" + (i % 7), i / 7 + 1));
    }
    return events;
  }

  @Test
  void publishesEveryEventWrittenBeforeAndDuringTheFirstStartOnceInPerAggregateOrder()
      throws Exception {
    Ledger ledger = topics.newLedger();
    RawOutboxInserts.write(db, ledger, existing(350));
    writer = SteadyWriter.start(db, ledger, "order", 200, 12, 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> writer.commitMillis().size() > 100);

    RelayRun relay = run("relay", RelaySettings.cdc(db, topics.bootstrap(), topics.name()));
    relay.awaitReady();
    long atReady = writer.commitMillis().size();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() > atReady + 200);
    writer.stop(Duration.ofSeconds(10));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(90));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(relay.log())
        .containsPattern(
            "first start of relay.name '[^']+': published \\d+ rows of "
                + db.name()
                + ".outbox_events already in the table \\(cdc.first.start=publish\\)");
    assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
  }

  @Test
  void publishesNoneOfTheRowsAlreadyInTheTableWithSkipAndSaysHowManyItSkipped() throws Exception {
    Ledger before = topics.newLedger();
    List<TestEvent> old = existing(40);
    RawOutboxInserts.write(db, before, old);

    RelayRun relay =
        run(
            "relay",
            RelaySettings.cdc(db, topics.bootstrap(), topics.name())
                .with("cdc.first.start", "skip"));
    relay.awaitReady();
    Ledger after = topics.newLedger();
    List<TestEvent> later = List.of(TestEvent.of("order", "after-1", 1));
    RawOutboxInserts.write(db, after, later);

    List<ConsumedRecord> records = topics.readAll(after, Duration.ofSeconds(60));
    Set<String> oldIds = old.stream().map(TestEvent::eventId).collect(Collectors.toSet());
    assertThat(records)
        .extracting(r -> r.header("id"))
        .doesNotContainAnyElementsOf(oldIds)
        .containsExactly(later.get(0).eventId());
    assertThat(relay.log().lines().filter(l -> l.contains("first start of relay.name")).toList())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains(" INFO ")
                    .contains(
                        "skipped 40 rows of "
                            + db.name()
                            + ".outbox_events already in the table (cdc.first.start=skip)"));
  }

  /**
   * While the first start waits for Kafka (its topic does not exist yet on a broker that creates
   * none), the relay holds no transaction open: an {@code ALTER TABLE} of the outbox, which needs
   * an exclusive metadata lock, and the application's inserts after it complete at once. Then the
   * topic appears and every event, those before and after the ALTER, is published once in order.
   */
  @Test
  void holdsNoTransactionWhileItWaitsForKafkaSoAnAlterAndTheApplicationsInsertsDoNotWait()
      throws Exception {
    try (KafkaBroker broker =
        KafkaBroker.builder().brokerProperty("auto.create.topics.enable", "false").start()) {
      TestTopics own = topics.on(broker.bootstrapServers());
      Ledger ledger = own.newLedger();
      RawOutboxInserts.write(db, ledger, existing(60));
      Path config =
          RelaySettings.cdc(db, broker.bootstrapServers(), topics.name())
              .writeTo(dir.resolve("relay.properties"));
      // Not run(): that waits for ready, which follows the topic.
      RelayRun relay = runs.run("relay", dir, config.toString());
      await().atMost(Duration.ofSeconds(60)).until(() -> relay.log().contains("leader (epoch"));
      Thread.sleep(10_000); // the first start takes its snapshot and waits for the topic

      assertThat(relay.log()).doesNotContain("first start of relay.name");
      // A transaction held while the first start waits for the topic would stay open for good:
      // none of the relay's may be older than 2 s, throughout 5 s. Its short transactions (lease
      // renewals, and under a loaded machine a snapshot still being read) come and go.
      String heldLong =
          "SELECT COUNT(*) FROM information_schema.innodb_trx t JOIN"
              + " information_schema.processlist p ON p.id = t.trx_mysql_thread_id WHERE"
              + " p.user = '"
              + db.relayUser()
              + "' AND t.trx_started < NOW() - INTERVAL 2 SECOND";
      await("no transaction of the relay open for more than 2 s, throughout 5 s")
          .atMost(Duration.ofSeconds(60))
          .during(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> ((Number) db.adminQuery(heldLong)).longValue() == 0);
      assertThat(relay.log()).doesNotContain("first start of relay.name");
      long start = System.nanoTime();
      db.admin(
          "SET SESSION lock_wait_timeout = 5",
          "ALTER TABLE " + db.name() + ".outbox_events ADD COLUMN note VARCHAR(20) NULL");
      RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "after-alter", 1)));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

      broker.createTopic(RelaySettings.topicPrefix(topics.name()) + "order", 3);
      Ledger.Result result = own.check(ledger, Duration.ofSeconds(120));
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
    }
  }

  /**
   * A relay that streamed the table before and whose stored position was deleted (an operator, a
   * recreated offsets table) does not publish the table again at its next start (CDC sets no
   * status, so every row looks unpublished): it takes a new position and says why it skipped.
   */
  @Test
  void aRelayThatStreamedBeforeDoesNotRepublishTheTableWhenItsPositionIsDeleted() throws Exception {
    Ledger before = topics.newLedger();
    RawOutboxInserts.write(db, before, existing(30));
    RelaySettings settings = RelaySettings.cdc(db, topics.bootstrap(), topics.name());
    RelayRun first = run("first", settings);
    first.awaitReady();
    List<TestEvent> streamed = List.of(TestEvent.of("order", "streamed-1", 1));
    RawOutboxInserts.write(db, before, streamed);
    Ledger.Result once = topics.check(before, Duration.ofSeconds(90));
    assertThat(once.lost()).as(once.summary()).isZero();
    first.close();

    db.admin("DELETE FROM " + db.name() + ".outbox_relay_offsets");
    RelayRun second = run("second", settings);
    second.awaitReady();
    Ledger after = topics.newLedger();
    List<TestEvent> later = List.of(TestEvent.of("order", "after-1", 1));
    RawOutboxInserts.write(db, after, later);
    topics.readAll(after, Duration.ofSeconds(60));

    Ledger.Result result = topics.check(before, Duration.ofSeconds(30));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(second.log())
        .contains("skipped 31 rows of " + db.name() + ".outbox_events already in the table")
        .contains("streamed this table before");
  }
}
