package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
                + RecordSizeLimit.serializedSize(big)
                + " bytes as a batch of its own, more than the max.message.bytes of topic orders"
                + " (1500)");
  }

  @Test
  void aRecordThatFillsTheLimitExactlyPasses() {
    RoutedRecord r = record("orders", 1000);
    TopicLimits limits = limits(RecordSizeLimit.serializedSize(r));
    assertThat(limits.check(r)).isNull();
    assertThat(limits.check(record("orders", 1001))).isNotNull();
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
