package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/** Each topic's broker limit: what it refuses, when it asks again, when records go one by one. */
class TopicLimitsTest {

  private final AtomicLong now = new AtomicLong();
  private final List<String> asked = new ArrayList<>();

  private static RoutedRecord record(String topic, int valueBytes) {
    return new RoutedRecord(
        topic,
        "o-1".getBytes(StandardCharsets.UTF_8),
        List.of(RecordHeader.utf8("id", "e-1")),
        "x".repeat(valueBytes).getBytes(StandardCharsets.UTF_8));
  }

  private TopicLimits limits(int bytes) {
    return TopicLimits.of(
        topic -> {
          asked.add(topic);
          return bytes;
        },
        262_144,
        now::get);
  }

  @Test
  void aRecordOverItsTopicsLimitIsRefusedNamingTheTopicAndTheLimit() {
    TopicLimits limits = limits(1500);
    RoutedRecord big = record("orders", 3000);
    assertThat(limits.check(record("orders", 100))).isNull();
    assertThat(limits.check(big))
        .isNotNull()
        .hasMessage(
            "the record is "
                + SingleRecordBatch.sizeOf(big, Compression.NONE)
                + " bytes as a batch of its own, more than the max.message.bytes of topic orders"
                + " (1500)");
  }

  @Test
  void aRecordThatFillsTheLimitExactlyPasses() {
    // The upper bound the producer counts is a few bytes over the real batch: the broker takes a
    // record whose batch fills its limit exactly, so the check must too.
    RoutedRecord r = record("orders", 1000);
    int exact = SingleRecordBatch.sizeOf(r, Compression.NONE);
    assertThat(RecordSizeLimit.serializedSize(r)).isGreaterThan(exact);
    TopicLimits limits = limits(exact);
    assertThat(limits.check(r)).isNull();
    assertThat(limits.check(record("orders", 1001))).isNotNull();
  }

  @Test
  void aCompressibleRecordOverTheLimitUncompressedPassesWhenItsCompressedBatchFits() {
    TopicLimits limits =
        TopicLimits.of(t -> 1500, 262_144, Compression.lz4().build(), now::get, Runnable::run);
    RoutedRecord compressible = record("orders", 3000);
    assertThat(RecordSizeLimit.serializedSize(compressible)).isGreaterThan(1500);
    assertThat(limits.check(compressible)).isNull();
  }

  @Test
  void anIncompressibleRecordIsRefusedWithItsCompressedSize() {
    TopicLimits limits =
        TopicLimits.of(t -> 1500, 262_144, Compression.lz4().build(), now::get, Runnable::run);
    byte[] random = new byte[3000];
    new Random(42).nextBytes(random);
    RoutedRecord incompressible =
        new RoutedRecord("orders", "o-1".getBytes(StandardCharsets.UTF_8), List.of(), random);
    int compressed = SingleRecordBatch.sizeOf(incompressible, Compression.lz4().build());
    assertThat(compressed).isGreaterThan(1500);
    assertThat(limits.check(incompressible))
        .hasMessage(
            "the record is "
                + compressed
                + " bytes as a batch of its own compressed with lz4, more than the"
                + " max.message.bytes of topic orders (1500)");
  }

  @Test
  void aRecordOverTheProducersOwnLimitIsLeftToTheProducerUncompressed() {
    // The producer refuses it in send() naming max.request.size (1 MiB here); compressing it
    // first would only cost CPU.
    TopicLimits limits =
        TopicLimits.of(t -> 1500, 262_144, Compression.lz4().build(), now::get, Runnable::run);
    byte[] random = new byte[2_000_000];
    new Random(7).nextBytes(random);
    assertThat(
            limits.check(
                new RoutedRecord(
                    "orders", "o-1".getBytes(StandardCharsets.UTF_8), List.of(), random)))
        .isNull();
  }

  @Test
  void aReadRefusedByAnAclStopsReadingOnThePublishingThreadAndIsAskedAgainRarely() {
    List<Runnable> queued = new ArrayList<>();
    TopicLimits limits =
        TopicLimits.of(
            topic -> {
              asked.add(topic);
              throw new java.util.concurrent.ExecutionException(
                  new TopicAuthorizationException("Topic authorization failed."));
            },
            262_144,
            Compression.NONE,
            now::get,
            queued::add);
    assertThat(limits.check(record("orders", 3000))).as("unknown: unchecked").isNull();
    assertThat(asked).as("the first read, before the refusal is known").containsExactly("orders");
    // Another topic: nothing is read on this thread, one read is queued for the background.
    assertThat(limits.check(record("payments", 3000))).isNull();
    assertThat(limits.oneAtATime("payments")).isFalse();
    assertThat(asked).containsExactly("orders");
    assertThat(queued).hasSize(1);
    queued.remove(0).run();
    assertThat(asked).containsExactly("orders", "payments");
    // Not again after the usual retry period; once, off this thread, after the long one.
    now.addAndGet(TopicLimits.RETRY.toNanos() + 1);
    limits.check(record("orders", 10));
    limits.check(record("payments", 10));
    assertThat(queued).isEmpty();
    now.addAndGet(TopicLimits.DENIED_RETRY.toNanos());
    limits.check(record("orders", 10));
    limits.check(record("orders", 10));
    assertThat(queued).hasSize(1);
    assertThat(asked).containsExactly("orders", "payments");
  }

  @Test
  void aLaterReadRunsOffThePublishingThreadWhileTheLastLimitStands() {
    List<Runnable> queued = new ArrayList<>();
    AtomicInteger bytes = new AtomicInteger(1500);
    TopicLimits limits =
        TopicLimits.of(t -> bytes.get(), 262_144, Compression.NONE, now::get, queued::add);
    assertThat(limits.check(record("orders", 3000))).isNotNull();
    bytes.set(1_000_000);
    now.addAndGet(TopicLimits.TTL.toNanos() + 1);
    assertThat(limits.check(record("orders", 3000))).as("the last limit stands").isNotNull();
    assertThat(queued).hasSize(1);
    queued.remove(0).run();
    assertThat(limits.check(record("orders", 3000))).isNull();
  }

  @Test
  void recordsOfATopicWhoseLimitIsBelowTheBatchSizeGoOneAtATime() {
    assertThat(limits(1500).oneAtATime("orders")).isTrue();
    assertThat(limits(1_048_588).oneAtATime("orders")).isFalse();
  }

  @Test
  void aLimitIsReadOncePerTopicForItsTimeToLiveAndAgainWhenForgotten() {
    TopicLimits limits = limits(1500);
    limits.check(record("orders", 10));
    limits.oneAtATime("orders");
    limits.check(record("payments", 10));
    assertThat(asked).containsExactly("orders", "payments");
    now.addAndGet(TopicLimits.TTL.toNanos() + 1);
    limits.check(record("orders", 10));
    limits.forget("payments");
    limits.check(record("payments", 10));
    assertThat(asked).containsExactly("orders", "payments", "orders", "payments");
  }

  @Test
  void aLimitThatCannotBeReadLetsRecordsThroughAndIsAskedAgainLater() {
    AtomicInteger calls = new AtomicInteger();
    TopicLimits limits =
        TopicLimits.of(
            topic -> {
              if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("no answer");
              }
              return 100;
            },
            262_144,
            now::get);
    assertThat(limits.check(record("orders", 3000))).as("unknown: unchecked").isNull();
    assertThat(limits.oneAtATime("orders")).isFalse();
    assertThat(calls).hasValue(1);
    now.addAndGet(TopicLimits.RETRY.toNanos() + 1);
    assertThat(limits.check(record("orders", 3000))).isNotNull();
    assertThat(calls).hasValue(2);
  }
}
