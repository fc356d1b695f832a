package io.outboxrelay.relay.source.cdc;

import static io.outboxrelay.relay.source.cdc.ChangeRecords.heartbeat;
import static io.outboxrelay.relay.source.cdc.ChangeRecords.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.debezium.engine.RecordChangeEvent;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.PoisonAction;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.relay.metrics.MetricNames;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.publish.TestBreakers;
import io.outboxrelay.relay.testing.Configs;
import io.outboxrelay.relay.versions.VersionWatch;
import io.outboxrelay.router.EventRouter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer with {@code delivery.guarantee=exactly-once}: each batch one transaction of the
 * records and the position after them; nothing marked before the commit; a failed transaction sent
 * again whole; a fenced producer ends the term. Kafka's {@link MockProducer} keeps the records of
 * committed transactions in its history, which is what a {@code read_committed} consumer sees.
 */
class TransactionalBatchTest {

  private static final RecordSizeLimit LIMIT = RecordSizeLimit.of(1_048_576, 33_554_432L);

  private final List<MockProducer<byte[], byte[]>> producers = new CopyOnWriteArrayList<>();
  private final RelayMetrics metrics = new RelayMetrics();
  private final OutboxChangeConsumerTest.Committer committer =
      new OutboxChangeConsumerTest.Committer();
  private final List<String> endedTerms = new CopyOnWriteArrayList<>();
  private final AtomicBoolean autoComplete = new AtomicBoolean(true);
  private final KafkaBreaker kafka = TestBreakers.answeringWhile(() -> true);
  private final RelayConfig config =
      Configs.parse(
          Map.of(
              "source.host", "db.internal",
              "source.database", "shop",
              "source.user", "relay",
              "kafka.bootstrap.servers", "k1:9092",
              "cdc.server.id", "5401",
              "relay.name", "orders",
              "delivery.guarantee", "exactly-once"));
  private final List<KafkaPublisher> publishers = new ArrayList<>();

  /** Per producer: the index of the publisher (transactional id) that created it. */
  private final Map<MockProducer<byte[], byte[]>, Integer> idOf = new ConcurrentHashMap<>();

  private OutboxChangeConsumer consumer(PoisonAction action) {
    return consumer(action, 1);
  }

  private OutboxChangeConsumer consumer(PoisonAction action, int transactionalIds) {
    for (int i = 0; i < transactionalIds; i++) {
      int id = i;
      publishers.add(
          new KafkaPublisher(
              () -> {
                MockProducer<byte[], byte[]> p =
                    new OutboxChangeConsumerTest.AbortingMockProducer(autoComplete.get());
                p.initTransactions();
                producers.add(p);
                idOf.put(p, id);
                return p;
              },
              "test"));
    }
    ExactlyOnce eos = new ExactlyOnce(config, publishers, metrics, () -> true, endedTerms::add);
    return new OutboxChangeConsumer(
        new ChangeEventMapper(),
        EventRouter.withDefaults(),
        LIMIT,
        publishers.get(0),
        new Backoff(Duration.ofMillis(10), Duration.ofMillis(20), 2, 0, new Random(1)),
        kafka,
        action,
        metrics,
        new DrainGate(),
        "test",
        () -> true,
        VersionWatch.off(),
        eos);
  }

  @AfterEach
  void close() {
    publishers.forEach(p -> p.close(Duration.ZERO));
  }

  /** What a read_committed consumer sees: every producer's committed records, in order. */
  private List<ProducerRecord<byte[], byte[]>> committed() {
    List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>();
    for (MockProducer<byte[], byte[]> p : producers) {
      all.addAll(p.history());
    }
    return all;
  }

  private List<String> committedTopicsAndKeys() {
    return committed().stream()
        .map(r -> r.topic() + "/" + new String(r.key(), StandardCharsets.UTF_8))
        .toList();
  }

  private double transactions(String outcome) {
    return metrics
        .registry()
        .get(MetricNames.TRANSACTIONS)
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  @Test
  void commitsTheRecordsAndThePositionAfterThemInOneTransactionBeforeMarkingThem()
      throws Exception {
    OutboxChangeConsumer consumer = consumer(PoisonAction.FAIL);
    consumer.handleBatch(
        List.of(insert(1, "order", "a"), insert(2, "order", "b"), heartbeat(3)), committer);

    assertThat(producers).hasSize(1);
    MockProducer<byte[], byte[]> p = producers.get(0);
    assertThat(p.commitCount()).isEqualTo(1);
    assertThat(committedTopicsAndKeys())
        .containsExactly(
            "outbox.event.order/a",
            "outbox.event.order/b",
            "outbox-relay-progress/" + "[\"orders\",{\"server\":\"orders\"}]");
    // The position after the batch: the heartbeat's, the batch's last record.
    assertThat(new String(committed().get(2).value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"pos\":3}");
    assertThat(committer.marked).containsExactly(1L, 2L, 3L);
    assertThat(committer.batchesFinished).isEqualTo(1);
    assertThat(transactions("committed")).isEqualTo(1);
  }

  @Test
  void aBatchOfHeartbeatsCommitsItsPositionAlone() throws Exception {
    consumer(PoisonAction.FAIL).handleBatch(List.of(heartbeat(7), heartbeat(9)), committer);

    assertThat(committedTopicsAndKeys())
        .singleElement()
        .asString()
        .startsWith("outbox-relay-progress/");
    assertThat(new String(committed().get(0).value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"pos\":9}");
    assertThat(committer.marked).containsExactly(7L, 9L);
  }

  @Test
  void aTransactionWithAFailedRecordIsNotCommittedAndTheWholeBatchIsSentAgainInANewOne()
      throws Exception {
    autoComplete.set(false);
    OutboxChangeConsumer consumer = consumer(PoisonAction.FAIL);
    CompletableFuture<Void> done =
        CompletableFuture.runAsync(
            () -> {
              try {
                consumer.handleBatch(
                    List.of(
                        insert(1, "order", "a"), insert(2, "order", "a"), insert(3, "order", "b")),
                    committer);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> producers.size() == 1 && producers.get(0).uncommittedRecords().size() == 4);
    MockProducer<byte[], byte[]> first = producers.get(0);
    first.completeNext(); // event 1 acknowledged
    assertThat(committer.marked).as("nothing marked before the commit").isEmpty();
    first.errorNext(new NotEnoughReplicasException("the partition is short of replicas"));
    autoComplete.set(true); // the next producer's sends succeed
    first.completeNext(); // event 3
    first.completeNext(); // the position
    done.get(10, TimeUnit.SECONDS);

    assertThat(first.commitCount()).as("the failed transaction never committed").isZero();
    assertThat(first.history()).isEmpty();
    // Each event once, in order, and the position after them.
    assertThat(committedTopicsAndKeys())
        .containsExactly(
            "outbox.event.order/a",
            "outbox.event.order/a",
            "outbox.event.order/b",
            "outbox-relay-progress/[\"orders\",{\"server\":\"orders\"}]");
    assertThat(committer.marked).containsExactly(1L, 2L, 3L);
    assertThat(transactions("aborted")).isEqualTo(1);
    assertThat(transactions("committed")).isEqualTo(1);
    assertThat(metrics.snapshot().resent()).as("no duplicate reached Kafka").isZero();
  }

  /**
   * Two transactional ids take turns after each commit, so that a transaction never waits for the
   * markers of the one just committed; a transaction that did not commit goes again through the
   * same id, whose new producer's initTransactions() aborts the open one first.
   */
  @Test
  void twoProducersTakeTurnsAfterEachCommitAndAFailedTransactionGoesAgainThroughTheSameId()
      throws Exception {
    OutboxChangeConsumer consumer = consumer(PoisonAction.FAIL, 2);
    consumer.handleBatch(List.of(insert(1, "order", "a")), committer);
    consumer.handleBatch(List.of(insert(2, "order", "a")), committer);
    consumer.handleBatch(List.of(insert(3, "order", "a")), committer);
    assertThat(producers).hasSize(2);
    assertThat(producers.get(0).commitCount()).as("the first id: batches 1 and 3").isEqualTo(2);
    assertThat(producers.get(1).commitCount()).as("the second id: batch 2").isEqualTo(1);
    assertThat(committer.marked).containsExactly(1L, 2L, 3L);

    // Batch 4 is the second id's turn; its transaction fails and goes again through that id.
    MockProducer<byte[], byte[]> second = producers.get(1);
    second.sendException = new NotEnoughReplicasException("the partition is short of replicas");
    consumer.handleBatch(List.of(insert(4, "order", "a")), committer);

    assertThat(producers).hasSize(3);
    assertThat(idOf.get(producers.get(2))).as("sent again through the same id").isEqualTo(1);
    assertThat(producers.get(2).commitCount()).isEqualTo(1);
    assertThat(second.commitCount()).as("the failed transaction never committed").isEqualTo(1);
    assertThat(committer.marked).containsExactly(1L, 2L, 3L, 4L);

    // After that commit, the first id's turn again.
    consumer.handleBatch(List.of(insert(5, "order", "a")), committer);
    assertThat(commitsOfId(0)).as("batches 1, 3 and 5").isEqualTo(3);
    assertThat(commitsOfId(1)).as("batches 2 and 4").isEqualTo(2);
    assertThat(committer.marked).containsExactly(1L, 2L, 3L, 4L, 5L);
  }

  private long commitsOfId(int id) {
    return producers.stream()
        .filter(p -> idOf.get(p) == id)
        .mapToLong(MockProducer::commitCount)
        .sum();
  }

  @Test
  void aFencedProducerEndsTheTermAndMarksNothing() throws Exception {
    OutboxChangeConsumer consumer = consumer(PoisonAction.FAIL);
    consumer.handleBatch(List.of(insert(1, "order", "a")), committer);
    producers.get(0).fenceProducer(); // another relay's initTransactions()

    consumer.handleBatch(List.of(insert(2, "order", "a"), insert(3, "order", "b")), committer);

    assertThat(endedTerms).singleElement().asString().contains("another relay leads");
    assertThat(committer.marked).containsExactly(1L);
    assertThat(committedTopicsAndKeys()).hasSize(2); // event 1 and its position only
    // Nothing more is sent in this term.
    consumer.handleBatch(List.of(insert(4, "order", "c")), committer);
    assertThat(committer.marked).containsExactly(1L);
    assertThat(producers).hasSize(1);
  }

  @Test
  void withFailAPoisonEventStopsTheRelayAfterCommittingWhatCameBeforeItWithThePositionThere()
      throws Exception {
    OutboxChangeConsumer consumer = consumer(PoisonAction.FAIL);
    List<RecordChangeEvent<SourceRecord>> batch =
        List.of(
            insert(1, "order", "a"),
            insert(2, "order", "b", null), // NULL payload: poison before sending
            insert(3, "order", "c"));

    assertThatThrownBy(() -> consumer.handleBatch(batch, committer))
        .isInstanceOf(RelayFailure.class)
        .hasMessageContaining("event_id=");

    assertThat(committedTopicsAndKeys())
        .containsExactly(
            "outbox.event.order/a", "outbox-relay-progress/[\"orders\",{\"server\":\"orders\"}]");
    assertThat(new String(committed().get(1).value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"pos\":1}");
    assertThat(committer.marked).containsExactly(1L);
  }

  @Test
  void withSkipARecordKafkaRefusesIsLeftOutOfTheNextTransactionAndCounted() throws Exception {
    autoComplete.set(false);
    OutboxChangeConsumer consumer = consumer(PoisonAction.SKIP);
    CompletableFuture<Void> done =
        CompletableFuture.runAsync(
            () -> {
              try {
                consumer.handleBatch(
                    List.of(
                        insert(1, "order", "a"), insert(2, "order", "b"), insert(3, "order", "c")),
                    committer);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> producers.size() == 1 && producers.get(0).uncommittedRecords().size() == 4);
    MockProducer<byte[], byte[]> first = producers.get(0);
    first.completeNext();
    autoComplete.set(true);
    first.errorNext(new RecordTooLargeException("over the broker's limit"));
    first.completeNext(); // event 3
    first.completeNext(); // the position
    done.get(10, TimeUnit.SECONDS);

    assertThat(committedTopicsAndKeys())
        .containsExactly(
            "outbox.event.order/a",
            "outbox.event.order/c",
            "outbox-relay-progress/[\"orders\",{\"server\":\"orders\"}]");
    assertThat(committer.marked).containsExactly(1L, 2L, 3L);
    assertThat(
            metrics.registry().get(MetricNames.FAILED).tag("outcome", "skipped").counter().count())
        .isEqualTo(1);
  }
}
