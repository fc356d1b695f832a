package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.KafkaUnavailableException;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The publisher against Kafka's {@link MockProducer}: what it sends, and what it reports. */
class KafkaPublisherTest {

  /**
   * Behaves as {@code KafkaProducer} where the publisher depends on it: {@code
   * close(Duration.ZERO)} aborts the records not yet acknowledged; a record keyed {@code refused}
   * is refused inside {@code send} (as the producer's own size check does); a send to the topic
   * {@code missing} returns an already failed future (metadata not available within {@code
   * max.block.ms}). A record keyed {@code acked}, sent when no other waits, is acknowledged at
   * once.
   */
  static final class KafkaLikeMockProducer extends MockProducer<byte[], byte[]> {
    final Map<String, AtomicInteger> sendsPerTopic = new ConcurrentHashMap<>();

    KafkaLikeMockProducer(boolean autoComplete) {
      super(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<byte[], byte[]> record, Callback callback) {
      sendsPerTopic.computeIfAbsent(record.topic(), t -> new AtomicInteger()).incrementAndGet();
      if ("refused".equals(new String(record.key(), StandardCharsets.UTF_8))) {
        throw new RecordTooLargeException("The message is 2000000 bytes when serialized");
      }
      if ("missing".equals(record.topic())) {
        TimeoutException e =
            new TimeoutException("Topic missing not present in metadata after 10000 ms.");
        callback.onCompletion(null, e);
        return CompletableFuture.failedFuture(e);
      }
      Future<RecordMetadata> f = super.send(record, callback);
      if ("acked".equals(new String(record.key(), StandardCharsets.UTF_8))) {
        completeNext();
      }
      return f;
    }

    @Override
    public void close(Duration timeout) {
      super.close(timeout);
      while (errorNext(new KafkaException("Producer is closed forcefully."))) {
        // abort every record still queued
      }
    }
  }

  private final List<KafkaLikeMockProducer> producers = new CopyOnWriteArrayList<>();
  private KafkaPublisher publisher;

  private KafkaPublisher publisher(boolean autoComplete) {
    publisher =
        new KafkaPublisher(
            () -> {
              KafkaLikeMockProducer p = new KafkaLikeMockProducer(autoComplete);
              producers.add(p);
              return p;
            },
            "test");
    return publisher;
  }

  @AfterEach
  void closePublisher() {
    if (publisher != null) {
      publisher.close(Duration.ZERO);
    }
  }

  private static RoutedRecord record(String topic, String key) {
    return new RoutedRecord(
        topic,
        key.getBytes(StandardCharsets.UTF_8),
        List.of(new RecordHeader("id", ("id-" + key).getBytes(StandardCharsets.UTF_8))),
        ("{\"k\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> keys(MockProducer<byte[], byte[]> p) {
    List<String> keys = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : p.history()) {
      keys.add(new String(r.key(), StandardCharsets.UTF_8));
    }
    return keys;
  }

  /** Runs a send on another thread, as a source would, so the test can drive the producer. */
  private CompletableFuture<List<KafkaPublisher.Outcome>> sendInBackground(
      List<RoutedRecord> records, BooleanSupplier giveUp, Predicate<Throwable> haltOn) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return publisher.sendAll(records, null, giveUp, haltOn);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private void awaitSent(int producer, int records) {
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                producers.size() > producer && producers.get(producer).history().size() == records);
  }

  @Test
  void sendsEveryRecordInOrderWithItsHeadersAndTimestampAndReportsEachAcknowledgement()
      throws Exception {
    publisher(true);

    List<KafkaPublisher.Outcome> outcomes =
        publisher.sendAll(
            List.of(record("t1", "a"), record("t2", "b"), record("t1", "a2")),
            1_700_000_000_000L,
            () -> false);

    MockProducer<byte[], byte[]> p = producers.get(0);
    assertThat(keys(p)).containsExactly("a", "b", "a2");
    assertThat(p.history()).extracting(ProducerRecord::topic).containsExactly("t1", "t2", "t1");
    ProducerRecord<byte[], byte[]> first = p.history().get(0);
    assertThat(first.timestamp()).isEqualTo(1_700_000_000_000L);
    assertThat(first.partition()).isNull();
    assertThat(new String(first.headers().lastHeader("id").value(), StandardCharsets.UTF_8))
        .isEqualTo("id-a");
    assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("{\"k\":\"a\"}");
    assertThat(outcomes).hasSize(3).allMatch(KafkaPublisher.Outcome::acknowledged);
    assertThat(outcomes).extracting(o -> o.metadata().topic()).containsExactly("t1", "t2", "t1");
  }

  @Test
  void reportsEachRecordsOwnFailureAndKeepsTheProducerWhenNothingHalts() throws Exception {
    publisher(false);
    CompletableFuture<List<KafkaPublisher.Outcome>> done =
        sendInBackground(
            List.of(record("t", "a"), record("t", "b"), record("t", "c")), () -> false, e -> false);
    awaitSent(0, 3);
    KafkaLikeMockProducer p = producers.get(0);
    p.completeNext();
    p.errorNext(new NetworkException("connection lost"));
    p.completeNext();

    List<KafkaPublisher.Outcome> outcomes = done.get(10, TimeUnit.SECONDS);

    assertThat(outcomes)
        .extracting(KafkaPublisher.Outcome::acknowledged)
        .containsExactly(true, false, true);
    assertThat(outcomes.get(1).error()).isInstanceOf(NetworkException.class);
    assertThat(outcomes.get(1).metadata()).isNull();
    assertThat(p.closed()).isFalse();
  }

  @Test
  void handsNothingMoreToTheProducerAfterARecordItRefusesInsideSend() throws Exception {
    publisher(true);

    List<KafkaPublisher.Outcome> outcomes =
        publisher.sendAll(
            List.of(record("t", "a"), record("t", "refused"), record("t", "c"), record("u", "d")),
            null,
            () -> false,
            e -> e instanceof RecordTooLargeException);

    assertThat(keys(producers.get(0))).containsExactly("a");
    assertThat(outcomes.get(0).acknowledged()).isTrue();
    assertThat(outcomes.get(1).error()).isInstanceOf(RecordTooLargeException.class);
    assertThat(outcomes.get(2).error()).isInstanceOf(KafkaPublisher.NotSentException.class);
    assertThat(outcomes.get(3).error()).isInstanceOf(KafkaPublisher.NotSentException.class);
    // Refused before anything followed it: the producer stays.
    assertThat(producers.get(0).closed()).isFalse();
  }

  @Test
  void closesTheProducerAtOnceWhenTheBrokerRefusesARecordSoNothingQueuedBehindItIsSent()
      throws Exception {
    publisher(false);
    CompletableFuture<List<KafkaPublisher.Outcome>> done =
        sendInBackground(
            List.of(record("t", "a"), record("t", "a"), record("t", "a")),
            () -> false,
            e -> e instanceof RecordTooLargeException);
    awaitSent(0, 3);
    KafkaLikeMockProducer first = producers.get(0);
    first.completeNext();
    first.errorNext(new RecordTooLargeException("larger than the topic's max.message.bytes"));

    List<KafkaPublisher.Outcome> outcomes = done.get(10, TimeUnit.SECONDS);

    assertThat(first.closed()).isTrue();
    assertThat(first.completeNext()).as("the third record was aborted, not left queued").isFalse();
    assertThat(outcomes.get(0).acknowledged()).isTrue();
    assertThat(outcomes.get(1).error()).isInstanceOf(RecordTooLargeException.class);
    assertThat(outcomes.get(2).error()).isInstanceOf(KafkaException.class);

    // The next send gets a fresh producer.
    CompletableFuture<List<KafkaPublisher.Outcome>> next =
        sendInBackground(List.of(record("t", "b")), () -> false, e -> false);
    awaitSent(1, 1);
    producers.get(1).completeNext();
    assertThat(next.get(10, TimeUnit.SECONDS)).allMatch(KafkaPublisher.Outcome::acknowledged);
  }

  @Test
  void failsTheLaterRecordsOfATopicWithoutMetadataAtOnceWithoutSendingThem() throws Exception {
    publisher(true);

    List<KafkaPublisher.Outcome> outcomes =
        publisher.sendAll(
            List.of(
                record("missing", "a"),
                record("t", "b"),
                record("missing", "c"),
                record("missing", "d")),
            null,
            () -> false);

    KafkaLikeMockProducer p = producers.get(0);
    assertThat(p.sendsPerTopic.get("missing")).hasValue(1);
    assertThat(keys(p)).containsExactly("b");
    assertThat(outcomes)
        .extracting(KafkaPublisher.Outcome::acknowledged)
        .containsExactly(false, true, false, false);
    assertThat(outcomes.get(2).error()).isSameAs(outcomes.get(0).error());
    assertThat(outcomes.get(3).error()).isInstanceOf(TimeoutException.class);
    assertThat(ErrorClassifier.classify(outcomes.get(0).error())).isEqualTo(Disposition.RETRY);
  }

  @Test
  void stopsWaitingWhenAskedAndReportsWhatIsNotAcknowledgedAsGivenUp() throws Exception {
    publisher(false);

    List<KafkaPublisher.Outcome> outcomes =
        publisher.sendAll(List.of(record("t", "acked"), record("t", "b")), null, () -> true);

    assertThat(keys(producers.get(0))).containsExactly("acked", "b");
    assertThat(outcomes.get(0).acknowledged()).isTrue();
    assertThat(outcomes.get(1).error()).isInstanceOf(KafkaPublisher.GaveUpException.class);
  }

  @Test
  void replacesTheProducerAfterAResetAndRefusesToSendOnceClosed() throws Exception {
    publisher(true);
    publisher.sendAll(List.of(record("t", "a")), null, () -> false);

    publisher.reset();
    publisher.sendAll(List.of(record("t", "b")), null, () -> false);

    assertThat(producers).hasSize(2);
    assertThat(producers.get(0).closed()).isTrue();
    assertThat(keys(producers.get(1))).containsExactly("b");

    publisher.close(Duration.ZERO);
    publisher.close(Duration.ZERO);
    assertThat(producers.get(1).closed()).isTrue();
    assertThatThrownBy(() -> publisher.sendAll(List.of(record("t", "c")), null, () -> false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void aProducerThatCannotBeCreatedFailsEveryRecordAsKafkaUnavailable() throws Exception {
    KafkaPublisher publisher =
        new KafkaPublisher(
            () -> {
              throw new KafkaException(
                  "Failed to construct kafka producer",
                  new ConfigException("No resolvable bootstrap urls given in bootstrap.servers"));
            },
            "test");
    RoutedRecord record =
        new RoutedRecord(
            "t",
            "k".getBytes(StandardCharsets.UTF_8),
            List.of(),
            "v".getBytes(StandardCharsets.UTF_8));

    List<KafkaPublisher.Outcome> outcomes =
        publisher.sendAll(List.of(record, record), null, () -> false);

    assertThat(outcomes)
        .hasSize(2)
        .allSatisfy(
            o -> {
              assertThat(o.acknowledged()).isFalse();
              assertThat(o.error()).isInstanceOf(KafkaUnavailableException.class);
              assertThat(ErrorClassifier.classify(o.error())).isEqualTo(Disposition.UNAVAILABLE);
              assertThat(ErrorClassifier.describe(o.error()))
                  .contains("cannot create the Kafka producer")
                  .contains("No resolvable bootstrap urls");
            });
  }
}
