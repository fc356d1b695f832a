package io.outboxrelay.idempotency.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offsets of records that are done (committed in the database, or dead-lettered) but not yet
 * committed to Kafka. Not thread-safe: owned by the consumer's thread.
 */
final class PendingOffsets {

  private static final Logger LOG = LoggerFactory.getLogger(PendingOffsets.class);

  private final Consumer<byte[], byte[]> consumer;
  private final String logPrefix;
  private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();

  PendingOffsets(Consumer<byte[], byte[]> consumer, String logPrefix) {
    this.consumer = consumer;
    this.logPrefix = logPrefix;
  }

  /** Notes that {@code record} is done: the next commit moves its partition past it. */
  void markDone(ConsumerRecord<byte[], byte[]> record) {
    pending.put(
        new TopicPartition(record.topic(), record.partition()),
        new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
  }

  /** Forgets partitions this consumer lost: their offsets can no longer be committed by it. */
  void drop(Collection<TopicPartition> partitions) {
    partitions.forEach(pending::remove);
  }

  /**
   * Commits the pending offsets synchronously. A commit refused because this consumer left the
   * group is logged and dropped (the records are delivered again and found to be duplicates); one
   * that could not be made now (rebalance in progress, timeout) is kept for the next call.
   *
   * @return the offsets committed, empty if none
   * @throws org.apache.kafka.common.KafkaException on other Kafka errors
   * @throws org.apache.kafka.common.errors.WakeupException if {@code close()} woke the consumer
   */
  Map<TopicPartition, OffsetAndMetadata> commit() {
    if (pending.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(pending);
    try {
      consumer.commitSync(offsets);
      pending.clear();
      return offsets;
    } catch (RebalanceInProgressException | TimeoutException e) {
      LOG.warn("{} offset commit postponed, kept for the next one: {}", logPrefix, e.toString());
    } catch (CommitFailedException e) {
      pending.clear();
      LOG.warn(
          "{} offset commit refused, this consumer is no longer in the group: {}. Records since the"
              + " last commit are delivered again and recognised as duplicates",
          logPrefix,
          e.toString());
    }
    return Map.of();
  }
}
