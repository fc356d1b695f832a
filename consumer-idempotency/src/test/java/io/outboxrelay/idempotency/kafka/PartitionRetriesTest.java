package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionRetriesTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final PartitionRetries retries = new PartitionRetries(now::get);
  private final TopicPartition p0 = new TopicPartition("t", 0);
  private final TopicPartition p1 = new TopicPartition("t", 1);

  @Test
  void countsAttemptsPerRecordAndStartsOverForAnotherOffset() {
    assertThat(retries.attempt(p0, 5)).isEqualTo(1);
    retries.retryLater(p0, 5, 1, Duration.ofMillis(100));
    assertThat(retries.attempt(p0, 5)).isEqualTo(2);
    assertThat(retries.attempt(p0, 6)).isEqualTo(1);
    assertThat(retries.attempt(p1, 5)).isEqualTo(1);

    retries.clear(p0);
    assertThat(retries.attempt(p0, 5)).isEqualTo(1);
  }

  @Test
  void resumesAPartitionOnceItsPauseIsOver() {
    retries.retryLater(p0, 5, 1, Duration.ofMillis(100));
    retries.retryLater(p1, 9, 2, Duration.ofMillis(300));

    assertThat(retries.due()).isEmpty();
    now.addAndGet(Duration.ofMillis(100).toNanos());
    assertThat(retries.due()).containsExactly(p0);
    assertThat(retries.due()).as("resumed once only").isEmpty();
    assertThat(retries.attempt(p0, 5)).as("the attempt count survives the resume").isEqualTo(2);
  }

  @Test
  void shortensThePollToTheNextResume() {
    assertThat(retries.pollTimeout(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(500));
    retries.retryLater(p0, 5, 1, Duration.ofMillis(120));
    now.addAndGet(Duration.ofMillis(20).toNanos());

    assertThat(retries.pollTimeout(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(100));
    now.addAndGet(Duration.ofMillis(200).toNanos());
    assertThat(retries.pollTimeout(Duration.ofMillis(500))).isEqualTo(Duration.ZERO);
  }

  @Test
  void forgetsRevokedPartitions() {
    retries.retryLater(p0, 5, 1, Duration.ofMillis(100));
    retries.retryLater(p1, 9, 1, Duration.ofMillis(100));

    retries.forget(List.of(p0));
    now.addAndGet(Duration.ofSeconds(1).toNanos());

    assertThat(retries.due()).containsExactly(p1);
    assertThat(retries.attempt(p0, 5)).isEqualTo(1);
  }
}
