package io.outboxrelay.idempotency.kafka;

import java.sql.Connection;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The business effect of one Kafka record, applied inside the idempotent processor's transaction.
 */
@FunctionalInterface
public interface RecordHandler {

  /**
   * Applies the record's business change with {@code connection}. Called on the consumer's thread,
   * one record at a time, only for records whose event id is new to the consumer group.
   *
   * <p>The same rules as {@link io.outboxrelay.idempotency.EventHandler} apply: do not commit, roll
   * back or close the connection. Throw to fail the record: it is rolled back and retried per the
   * consumer's {@link RetryPolicy}; throw {@link PoisonRecordException} to skip the retries. One
   * call must finish well within the consumer's {@code max.poll.interval.ms}.
   *
   * @param record the record: key = aggregate id, value = the event's JSON payload bytes, headers
   *     {@code id}, {@code event_type}, {@code aggregate_type}, {@code aggregate_id}; not {@code
   *     null}
   * @param connection the transaction's connection; not {@code null}
   * @throws Exception any failure
   */
  void handle(ConsumerRecord<byte[], byte[]> record, Connection connection) throws Exception;
}
