package io.outboxrelay.relay.source.cdc;

import static io.outboxrelay.relay.source.cdc.ChangeRecords.delete;
import static io.outboxrelay.relay.source.cdc.ChangeRecords.heartbeat;
import static io.outboxrelay.relay.source.cdc.ChangeRecords.insert;
import static io.outboxrelay.relay.source.cdc.ChangeRecords.insertVersioned;
import static io.outboxrelay.relay.source.cdc.ChangeRecords.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.PoisonAction;
import io.outboxrelay.relay.config.VersionCheck;
import io.outboxrelay.relay.config.VersionCheckConfig;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.publish.TestBreakers;
import io.outboxrelay.relay.versions.VersionWatch;
import io.outboxrelay.router.EventRouter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OutboxChangeConsumerTest {

  /** Records what the engine would commit. */
  static final class Committer
      implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
    final List<Long> marked = Collections.synchronizedList(new ArrayList<>());
    int batchesFinished;

    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> r) {
      marked.add((Long) r.record().sourceOffset().get("pos"));
    }

    @Override
    public synchronized void markBatchFinished() {
      batchesFinished++;
    }

    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> r, DebeziumEngine.Offsets o) {
      markProcessed(r);
    }

    @Override
    public DebeziumEngine.Offsets buildOffsets() {
      return null;
    }
  }

  /**
   * Closes as {@code KafkaProducer.close(Duration.ZERO)} does: the records not yet acknowledged are
   * aborted, never sent.
   */
  static final class AbortingMockProducer extends MockProducer<byte[], byte[]> {
    AbortingMockProducer(boolean autoComplete) {
      super(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public void close(Duration timeout) {
      super.close(timeout);
      while (errorNext(new KafkaException("Producer is closed forcefully."))) {
        // abort every record still queued
      }
    }
  }

  /** The default producer's limits: 1 MiB requests, 32 MiB of buffer. */
  private static final RecordSizeLimit DEFAULT_LIMIT = RecordSizeLimit.of(1_048_576, 33_554_432L);

  private final List<MockProducer<byte[], byte[]>> producers = new CopyOnWriteArrayList<>();
  private final RelayMetrics metrics = new RelayMetrics();
  private final DrainGate gate = new DrainGate();

  /** What the engine would commit of the test's batches. */
  private final Committer committer = new Committer();

  private final java.util.concurrent.atomic.AtomicBoolean mayPublish =
      new java.util.concurrent.atomic.AtomicBoolean(true);
  private KafkaPublisher publisher;

  /** Whether the breaker's probe finds Kafka answering. */
  private final AtomicBoolean kafkaAnswers = new AtomicBoolean(true);

  /** A breaker whose Kafka answers unless a test says otherwise, probing every 5 ms. */
  private final KafkaBreaker kafka = TestBreakers.answeringWhile(kafkaAnswers::get);

  private OutboxChangeConsumer consumer(boolean autoComplete, PoisonAction action) {
    return consumer(autoComplete, action, DEFAULT_LIMIT);
  }

  private OutboxChangeConsumer consumer(
      boolean autoComplete, PoisonAction action, RecordSizeLimit limit) {
    return consumer(autoComplete, action, limit, VersionWatch.off());
  }

  private OutboxChangeConsumer consumer(
      boolean autoComplete, PoisonAction action, RecordSizeLimit limit, VersionWatch versions) {
    publisher =
        new KafkaPublisher(
            () -> {
              MockProducer<byte[], byte[]> p = new AbortingMockProducer(autoComplete);
              producers.add(p);
              return p;
            },
            "test");
    return new OutboxChangeConsumer(
        EventRouter.withDefaults(),
        limit,
        publisher,
        new Backoff(Duration.ofMillis(10), Duration.ofMillis(20), 2, 0, new Random(1)),
        kafka,
        action,
        metrics,
        gate,
        "test",
        mayPublish::get,
        versions);
  }

  @AfterEach
  void closePublisher() {
    if (publisher != null) {
      publisher.close(Duration.ZERO);
    }
  }

  private static List<String> keys(MockProducer<byte[], byte[]> p) {
    List<String> keys = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : p.history()) {
      keys.add(new String(r.key(), StandardCharsets.UTF_8));
    }
    return keys;
  }

  /** Runs one batch on another thread, as the engine would, so the test can drive the producer. */
  private static CompletableFuture<Void> handleInBackground(
      OutboxChangeConsumer consumer,
      Committer committer,
      List<RecordChangeEvent<SourceRecord>> batch) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            consumer.handleBatch(batch, committer);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /**
   * Runs one batch in the background and waits until the first producer has been handed {@code
   * sent} records of it.
   */
  private CompletableFuture<Void> sendInBackground(
      OutboxChangeConsumer consumer, int sent, List<RecordChangeEvent<SourceRecord>> batch) {
    CompletableFuture<Void> done = handleInBackground(consumer, committer, batch);
    awaitSent(0, sent);
    return done;
  }

  /**
   * Runs a batch of {@link #orders} in the background on a consumer whose records Kafka answers
   * only when told, and waits until the first producer has been handed all of them.
   */
  private CompletableFuture<Void> sendOrdersInBackground(
      PoisonAction action, String... aggregateIds) {
    return sendInBackground(consumer(false, action), aggregateIds.length, orders(aggregateIds));
  }

  /**
   * Waits until the producer number {@code producer} (from 0) is the newest and has the records.
   */
  private void awaitSent(int producer, int records) {
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(
            () ->
                producers.size() == producer + 1
                    && producers.get(producer).history().size() == records);
  }

  /** Events of type order, ids from 1, one for each aggregate id in turn. */
  private static List<RecordChangeEvent<SourceRecord>> orders(String... aggregateIds) {
    List<RecordChangeEvent<SourceRecord>> events = new ArrayList<>();
    for (int i = 0; i < aggregateIds.length; i++) {
      events.add(insert(i + 1, "order", aggregateIds[i]));
    }
    return events;
  }

  /** Asserts that the batch stopped the relay; what for is up to the caller. */
  private static AbstractThrowableAssert<?, ? extends Throwable> assertStopsTheRelay(
      CompletableFuture<Void> done) {
    return assertThatThrownBy(() -> done.get(5, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(RelayFailure.class);
  }

  /** In {@link #answer}: the record is acknowledged. */
  private static final RuntimeException ACK = null;

  /** Answers the producer's next records in turn: acknowledged ({@link #ACK}) or failed. */
  private static void answer(MockProducer<byte[], byte[]> p, RuntimeException... outcomes) {
    for (RuntimeException outcome : outcomes) {
      if (outcome == ACK) {
        p.completeNext();
      } else {
        p.errorNext(outcome);
      }
    }
  }

  private static void acknowledgeAll(MockProducer<byte[], byte[]> p) {
    while (p.completeNext()) {
      // acknowledge all
    }
  }

  /**
   * Of four records on the first producer: acknowledges the first, fails the second (which replaces
   * the producer), acknowledges the last two; then waits for the re-send of the last three.
   *
   * @return the first producer
   */
  private MockProducer<byte[], byte[]> failTheSecondOfFour() {
    MockProducer<byte[], byte[]> first = producers.get(0);
    answer(first, ACK, new NetworkException("broker went away"), ACK, ACK);
    awaitSent(1, 3);
    return first;
  }

  @Test
  void publishesInsertsInOrderAndMarksEveryRecordAfterItsAck() throws Exception {
    OutboxChangeConsumer consumer = consumer(true, PoisonAction.FAIL);

    consumer.handleBatch(
        List.of(
            insert(1, "order", "a"),
            heartbeat(2),
            insert(3, "order", "b"),
            update(4),
            delete(5),
            insert(6, "invoice", "a")),
        committer);

    MockProducer<byte[], byte[]> p = producers.get(0);
    assertThat(keys(p)).containsExactly("a", "b", "a");
    assertThat(p.history())
        .extracting(ProducerRecord::topic)
        .containsExactly("outbox.event.order", "outbox.event.order", "outbox.event.invoice");
    ProducerRecord<byte[], byte[]> first = p.history().get(0);
    assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
    assertThat(new String(first.headers().lastHeader("id").value(), StandardCharsets.UTF_8))
        .isEqualTo("00000000-0000-0000-0000-000000000001");
    assertThat(first.headers().lastHeader("event_type")).isNotNull();
    assertThat(committer.marked).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(committer.batchesFinished).isEqualTo(1);
    assertThat(metrics.snapshot().published()).isEqualTo(3);
  }

  @Test
  void sendsAndMarksNothingOnceTheLeaseIsNoLongerSure() throws Exception {
    OutboxChangeConsumer consumer = consumer(true, PoisonAction.FAIL);
    consumer.handleBatch(List.of(insert(1, "order", "a")), committer);

    mayPublish.set(false);
    consumer.handleBatch(List.of(insert(2, "order", "a"), insert(3, "order", "b")), committer);

    assertThat(keys(producers.get(0))).containsExactly("a");
    assertThat(committer.marked).containsExactly(1L);
  }

  @Test
  void abandonsItsRetriesWhenTheLeaseIsNoLongerSure() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "a", "a");
    answer(producers.get(0), ACK, new NetworkException("broker went away"));
    mayPublish.set(false);

    done.get(5, TimeUnit.SECONDS);
    assertThat(committer.marked).containsExactly(1L);
    assertThat(producers).hasSizeLessThanOrEqualTo(2);
    producers.stream().skip(1).forEach(p -> assertThat(p.history()).isEmpty());
  }

  @Test
  void resendsFromTheFirstUnacknowledgedRecordOnAFreshProducerKeepingOrder() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "a", "a", "b", "a");
    MockProducer<byte[], byte[]> first = failTheSecondOfFour();
    assertThat(first.closed()).isTrue();
    assertThat(committer.marked).containsExactly(1L);
    MockProducer<byte[], byte[]> second = producers.get(1);
    acknowledgeAll(second);
    done.get(5, TimeUnit.SECONDS);

    assertThat(keys(second)).containsExactly("a", "b", "a");
    assertThat(committer.marked).containsExactly(1L, 2L, 3L, 4L);
    assertThat(committer.batchesFinished).isEqualTo(1);
    RelayMetrics.Snapshot s = metrics.snapshot();
    assertThat(s.published()).isEqualTo(4);
    assertThat(s.resent()).isEqualTo(2);
    assertThat(s.retries()).isEqualTo(1);
  }

  @Test
  void publishesVersionHeadersAndTakesNoResentRecordForAVersionGoingBackwards() throws Exception {
    OutboxChangeConsumer consumer =
        consumer(
            false,
            PoisonAction.FAIL,
            DEFAULT_LIMIT,
            VersionWatch.of(new VersionCheckConfig(VersionCheck.CONTIGUOUS, 10), metrics, "test"));
    CompletableFuture<Void> done =
        sendInBackground(
            consumer,
            4,
            List.of(
                insertVersioned(1, "a", 1L),
                insertVersioned(2, "a", 2L),
                insertVersioned(3, "a", 3L),
                insertVersioned(4, "b", null)));
    failTheSecondOfFour();
    MockProducer<byte[], byte[]> second = producers.get(1);
    acknowledgeAll(second);
    done.get(5, TimeUnit.SECONDS);

    // The re-send puts versions 2 and 3 after 3 once more: a re-send, not a version going back.
    assertThat(second.history())
        .extracting(r -> r.headers().lastHeader("aggregate_version"))
        .extracting(h -> h == null ? null : new String(h.value(), StandardCharsets.UTF_8))
        .containsExactly("2", "3", null);
    assertThat(metrics.versionsBackwardsCount()).isZero();
    assertThat(metrics.versionGapsCount()).isZero();
  }

  @Test
  void sendsAgainOnlyOnceKafkaAnswersWhenNothingWasAcknowledgedAndKafkaIsDown() throws Exception {
    kafkaAnswers.set(false);
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "a", "a");
    answer(
        producers.get(0),
        new NetworkException("broker went away"),
        new NetworkException("broker went away"));

    await().atMost(5, TimeUnit.SECONDS).until(() -> kafka.state() == KafkaBreaker.State.OPEN);
    // However short the backoff (10-20 ms here), nothing is sent while Kafka does not answer.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> producers.size() == 1);
    kafkaAnswers.set(true);

    awaitSent(1, 2);
    acknowledgeAll(producers.get(1));
    done.get(5, TimeUnit.SECONDS);
    assertThat(keys(producers.get(1))).containsExactly("a", "a");
    assertThat(committer.marked).containsExactly(1L, 2L);
    assertThat(metrics.snapshot().retries()).isEqualTo(2); // both events, sent again once
  }

  @Test
  void stopsBeforeAPoisonEventWhenTheActionIsFail() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "a", "b", "c");
    answer(producers.get(0), ACK, new RecordTooLargeException("The message is 2000000 bytes"), ACK);

    assertStopsTheRelay(done)
        .hasMessageContaining("event_id=00000000-0000-0000-0000-000000000002")
        .hasMessageContaining("RecordTooLargeException")
        .hasMessageContaining("cdc.poison.action=skip");
    assertThat(committer.marked).containsExactly(1L);
    assertThat(committer.batchesFinished).isEqualTo(1);
  }

  @Test
  void skipsAPoisonEventAndGoesOnWhenTheActionIsSkip() throws Exception {
    CompletableFuture<Void> done =
        sendInBackground(
            consumer(false, PoisonAction.SKIP),
            3,
            List.of(
                insert(1, "order", "a"),
                insert(2, "order", "b"),
                insert(3, "bad topic", "c"),
                insert(4, "order", "d")));
    answer(producers.get(0), ACK, new RecordTooLargeException("too large"), ACK);
    done.get(5, TimeUnit.SECONDS);

    assertThat(keys(producers.get(0))).containsExactly("a", "b", "d");
    assertThat(committer.marked).containsExactly(1L, 2L, 3L, 4L);
    assertThat(metrics.snapshot().poison()).isEqualTo(2);
    assertThat(metrics.snapshot().retries()).isZero();
  }

  @Test
  void sendsNothingAfterAnEventTooLargeForTheProducerAndStopsWithTheSizeHint() throws Exception {
    // Regression: the whole batch was sent before outcomes were read, so C (aggregate a, after
    // the poison B) was in Kafka before B, and again after every restart.
    String large = "{\"blob\":\"" + "x".repeat(5_000) + "\"}";
    OutboxChangeConsumer consumer =
        consumer(true, PoisonAction.FAIL, RecordSizeLimit.of(2_000, 33_554_432L));

    assertThatThrownBy(
            () ->
                consumer.handleBatch(
                    List.of(
                        insert(1, "order", "a"),
                        insert(2, "order", "a", large),
                        insert(3, "order", "a"),
                        insert(4, "order", "b")),
                    committer))
        .isInstanceOf(RelayFailure.class)
        .hasMessageContaining("event_id=00000000-0000-0000-0000-000000000002")
        .hasMessageContaining("aggregate_id='a'")
        .hasMessageContaining("more than the producer's max.request.size of 2000")
        .hasMessageContaining("Raise kafka.producer.max.request.size")
        .hasMessageContaining("cdc.poison.action=skip")
        .hasMessageNotContaining("router.topic.template");

    assertThat(keys(producers.get(0))).containsExactly("a");
    assertThat(committer.marked).containsExactly(1L);
    assertThat(committer.batchesFinished).isEqualTo(1);
  }

  @Test
  void sendsNothingAfterAnEventWithAnIllegalTopicAndNamesTheTemplateNotTheSize() throws Exception {
    OutboxChangeConsumer consumer = consumer(true, PoisonAction.FAIL);

    assertThatThrownBy(
            () ->
                consumer.handleBatch(
                    List.of(
                        insert(1, "order", "a"),
                        heartbeat(2),
                        insert(3, "bad topic", "a"),
                        insert(4, "order", "a")),
                    committer))
        .isInstanceOf(RelayFailure.class)
        .hasMessageContaining("event_id=00000000-0000-0000-0000-000000000003")
        .hasMessageContaining("not a legal Kafka topic name")
        .hasMessageContaining("router.topic.template")
        .hasMessageNotContaining("max.request.size");

    assertThat(keys(producers.get(0))).containsExactly("a");
    assertThat(committer.marked).containsExactly(1L, 2L);
  }

  @Test
  void treatsANullPayloadAsPoisonInsteadOfPublishingATombstone() throws Exception {
    OutboxChangeConsumer failing = consumer(true, PoisonAction.FAIL);

    assertThatThrownBy(
            () ->
                failing.handleBatch(
                    List.of(insert(1, "order", "a"), insert(2, "order", "a", null)), committer))
        .isInstanceOf(RelayFailure.class)
        .hasMessageContaining("payload is NULL")
        .hasMessageContaining("cdc.poison.action=skip")
        .hasMessageNotContaining("max.request.size");
    assertThat(committer.marked).containsExactly(1L);

    OutboxChangeConsumer skipping = consumer(true, PoisonAction.SKIP);
    Committer afterSkip = new Committer();
    skipping.handleBatch(
        List.of(insert(2, "order", "a", null), insert(3, "order", "a")), afterSkip);
    MockProducer<byte[], byte[]> p = producers.get(producers.size() - 1);
    assertThat(p.history()).hasSize(1).allMatch(r -> r.value() != null);
    assertThat(afterSkip.marked).containsExactly(2L, 3L);
    assertThat(metrics.snapshot().poison()).isEqualTo(1);
  }

  @Test
  void aRecordTheBrokerRefusesClosesTheProducerSoNothingQueuedBehindItIsSent() throws Exception {
    // The broker refuses B (its topic's max.message.bytes is below the producer's limit) after
    // C, of the same aggregate, was handed to the producer: C must never follow it to Kafka.
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "a", "a", "a");
    MockProducer<byte[], byte[]> p = producers.get(0);
    answer(
        p, ACK, new RecordTooLargeException("The request included a message larger than the max."));

    assertStopsTheRelay(done)
        .hasMessageContaining("event_id=00000000-0000-0000-0000-000000000002")
        .hasMessageContaining("larger than the max. Raise the topic's max.message.bytes");
    assertThat(p.closed()).isTrue();
    assertThat(p.completeNext()).as("C was aborted, not left to be sent").isFalse();
    assertThat(committer.marked).containsExactly(1L);
  }

  @Test
  void resendsOnlyWhatPrecedesARecordTheBrokerRefusedThenStopsAtIt() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "x", "a", "a");
    MockProducer<byte[], byte[]> first = producers.get(0);
    // x was not acknowledged when the refusal of a's first event aborted what was queued.
    answer(
        first,
        new NetworkException("connection lost"),
        new InvalidTopicException("Cannot append to internal topic"));

    awaitSent(1, 1);
    producers.get(1).completeNext();

    assertStopsTheRelay(done)
        .hasMessageContaining("event_id=00000000-0000-0000-0000-000000000002")
        .hasMessageContaining("router.topic.template");
    assertThat(keys(producers.get(1))).containsExactly("x");
    assertThat(committer.marked).containsExactly(1L);
  }

  @Test
  void skipsARecordTheBrokerRefusesWithoutHoldingBackTheRest() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.SKIP, "a", "a", "a");
    MockProducer<byte[], byte[]> p = producers.get(0);
    answer(p, ACK, new RecordTooLargeException("too large for the topic"), ACK);
    done.get(5, TimeUnit.SECONDS);

    assertThat(p.closed()).isFalse();
    assertThat(committer.marked).containsExactly(1L, 2L, 3L);
    assertThat(metrics.snapshot().poison()).isEqualTo(1);
    assertThat(metrics.snapshot().published()).isEqualTo(2);
  }

  @Test
  void aRefusalThatNeedsAnOperatorStopsTheSendingInEitherMode() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.SKIP, "a", "a", "a");
    MockProducer<byte[], byte[]> p = producers.get(0);
    answer(p, ACK, new org.apache.kafka.common.errors.ClusterAuthorizationException("denied"));

    assertStopsTheRelay(done).hasMessageContaining("ClusterAuthorizationException");
    assertThat(p.completeNext()).isFalse();
    assertThat(committer.marked).containsExactly(1L);
  }

  @Test
  void publishesNothingOnceDraining() throws Exception {
    OutboxChangeConsumer consumer = consumer(true, PoisonAction.FAIL);
    assertThat(gate.drain(Duration.ofSeconds(1))).isTrue();

    consumer.handleBatch(List.of(insert(1, "order", "a")), committer);

    assertThat(producers).isEmpty();
    assertThat(committer.marked).isEmpty();
    assertThat(committer.batchesFinished).isZero();
  }

  @Test
  void drainWaitsForTheBatchInFlightToBeAcknowledged() throws Exception {
    CompletableFuture<Void> done = sendOrdersInBackground(PoisonAction.FAIL, "a", "b");
    CompletableFuture<Boolean> drained =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gate.drain(Duration.ofSeconds(10));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .during(200, TimeUnit.MILLISECONDS)
        .atMost(2, TimeUnit.SECONDS)
        .until(() -> !drained.isDone());

    answer(producers.get(0), ACK, ACK);

    assertThat(drained.get(5, TimeUnit.SECONDS)).isTrue();
    done.get(5, TimeUnit.SECONDS);
    assertThat(committer.marked).containsExactly(1L, 2L);
    assertThat(committer.batchesFinished).isEqualTo(1);
  }

  @Test
  void abandonsRetriesWhenAStopPassesItsDeadline() throws Exception {
    OutboxChangeConsumer consumer = consumer(false, PoisonAction.FAIL);
    CompletableFuture<Void> done =
        handleInBackground(
            consumer, committer, List.of(insert(1, "order", "a"), insert(2, "order", "b")));
    // Kafka keeps failing: every producer errors everything it gets.
    CompletableFuture<Void> failing =
        CompletableFuture.runAsync(
            () -> {
              while (!done.isDone()) {
                for (MockProducer<byte[], byte[]> p : producers) {
                  while (p.errorNext(new NetworkException("down"))) {
                    // fail all
                  }
                }
                Thread.onSpinWait();
              }
            });
    await().atMost(5, TimeUnit.SECONDS).until(() -> metrics.snapshot().retries() >= 2);

    // The batch cannot be acknowledged in time; once the deadline passes it gives up promptly
    // (whether drain() itself saw it finish within its own wait is a race, so not asserted).
    gate.drain(Duration.ofMillis(300));
    done.get(2, TimeUnit.SECONDS);
    failing.get(5, TimeUnit.SECONDS);

    assertThat(committer.marked).isEmpty();
    assertThat(committer.batchesFinished).isEqualTo(1);
  }
}
