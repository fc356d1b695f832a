package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.Outcome;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Notifications from the consumer loop, for metrics and for tests that need to act at an exact
 * point (e.g. kill the process between the database commit and the offset commit). Every method has
 * an empty default.
 *
 * <p>Methods are called on the consumer's thread; a slow listener slows the consumer. An exception
 * thrown by a listener is logged and otherwise ignored.
 */
public interface ConsumerListener {

  /**
   * Called after the database transaction of a record committed and before its offset is committed
   * to Kafka (offsets are committed after each polled batch). A {@code CONFLICT} changed nothing;
   * the record then goes to the {@link FailurePolicy} (it is dead-lettered or the consumer stops).
   *
   * @param record the record; not {@code null}
   * @param outcome {@code PROCESSED}, {@code DUPLICATE}, {@code STALE} or {@code CONFLICT}; not
   *     {@code null}
   */
  default void afterDatabaseCommit(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {}

  /**
   * Called after offsets were committed to Kafka.
   *
   * @param offsets per partition, the offset of the next record to consume; not {@code null},
   *     unmodifiable
   */
  default void afterOffsetsCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {}

  /**
   * Called when a record failed and will be tried again after {@code delay}.
   *
   * @param record the record; not {@code null}
   * @param error the failure; not {@code null}
   * @param failedAttempts how many attempts have failed so far, at least 1
   * @param delay the pause before the next attempt; not {@code null}
   */
  default void onRetry(
      ConsumerRecord<byte[], byte[]> record, Throwable error, int failedAttempts, Duration delay) {}

  /**
   * Called after a record was published to the dead-letter topic; its offset is committed with the
   * batch.
   *
   * @param record the original record; not {@code null}
   * @param error the last failure; not {@code null}
   * @param attempts how many attempts failed
   */
  default void onDeadLettered(
      ConsumerRecord<byte[], byte[]> record, Throwable error, int attempts) {}

  /**
   * Called when the group gave this consumer partitions.
   *
   * @param partitions the partitions added; not {@code null}, may be empty
   */
  default void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

  /**
   * Called when partitions were taken away, after the offsets of what was done were committed
   * (revoked) or without a commit because this consumer had already been dropped from the group
   * (lost).
   *
   * @param partitions the partitions removed; not {@code null}, may be empty
   */
  default void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
}
