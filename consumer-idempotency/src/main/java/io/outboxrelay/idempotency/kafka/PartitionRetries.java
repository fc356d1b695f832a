package io.outboxrelay.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * The records waiting for another attempt, at most one per partition (its partition is paused and
 * positioned on it). Times come from the injected monotonic clock. Not thread-safe: owned by the
 * consumer's thread.
 */
final class PartitionRetries {

  private record Waiting(long offset, int failedAttempts, long resumeAtNanos, boolean paused) {}

  private final Map<TopicPartition, Waiting> waiting = new HashMap<>();
  private final LongSupplier nanoTime;

  PartitionRetries(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** The number of the attempt about to be made on the record at {@code offset}, from 1. */
  int attempt(TopicPartition partition, long offset) {
    Waiting w = waiting.get(partition);
    return w != null && w.offset() == offset ? w.failedAttempts() + 1 : 1;
  }

  /** Records that the record failed {@code failedAttempts} times and its partition was paused. */
  void retryLater(TopicPartition partition, long offset, int failedAttempts, Duration delay) {
    waiting.put(
        partition,
        new Waiting(offset, failedAttempts, nanoTime.getAsLong() + delay.toNanos(), true));
  }

  /** Forgets the partition's record: it succeeded or was given up. */
  void clear(TopicPartition partition) {
    waiting.remove(partition);
  }

  /** Forgets revoked or lost partitions. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(waiting::remove);
  }

  /** The paused partitions whose pause is over; they are marked as resumed. */
  List<TopicPartition> due() {
    long now = nanoTime.getAsLong();
    List<TopicPartition> due = new ArrayList<>();
    for (Map.Entry<TopicPartition, Waiting> entry : waiting.entrySet()) {
      Waiting w = entry.getValue();
      if (w.paused() && now - w.resumeAtNanos() >= 0) {
        due.add(entry.getKey());
        entry.setValue(new Waiting(w.offset(), w.failedAttempts(), w.resumeAtNanos(), false));
      }
    }
    return due;
  }

  /** How long the next poll may block: {@code max}, or less if a pause ends sooner. */
  Duration pollTimeout(Duration max) {
    long now = nanoTime.getAsLong();
    long timeout = max.toNanos();
    for (Waiting w : waiting.values()) {
      if (w.paused()) {
        timeout = Math.min(timeout, Math.max(0, w.resumeAtNanos() - now));
      }
    }
    return Duration.ofNanos(timeout);
  }
}
