package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.EventProcessingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Publishes given-up records to the dead-letter topic and waits for the acknowledgement. Not
 * thread-safe: used by the consumer's thread.
 */
final class DeadLetterPublisher implements AutoCloseable {

  private static final int MAX_MESSAGE_LENGTH = 1_000;
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(60);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final String consumerGroup;

  DeadLetterPublisher(Producer<byte[], byte[]> producer, String topic, String consumerGroup) {
    this.producer = producer;
    this.topic = topic;
    this.consumerGroup = consumerGroup;
  }

  String topic() {
    return topic;
  }

  /**
   * Publishes the record with its key, value and headers plus the {@code dlq.*} headers.
   *
   * @throws ExecutionException if the broker refused the record (the caller stops the consumer)
   * @throws TimeoutException if no acknowledgement came in time (the caller stops the consumer)
   * @throws InterruptedException if the thread was interrupted while waiting
   */
  void publish(ConsumerRecord<byte[], byte[]> record, Throwable error, int attempts)
      throws ExecutionException, TimeoutException, InterruptedException {
    ProducerRecord<byte[], byte[]> out =
        new ProducerRecord<>(topic, null, record.key(), record.value());
    Headers headers = out.headers();
    for (Header header : record.headers()) {
      headers.add(header.key(), header.value());
    }
    Throwable reported = reported(error);
    add(headers, FailurePolicy.HEADER_ORIGINAL_TOPIC, record.topic());
    add(headers, FailurePolicy.HEADER_ORIGINAL_PARTITION, Integer.toString(record.partition()));
    add(headers, FailurePolicy.HEADER_ORIGINAL_OFFSET, Long.toString(record.offset()));
    add(headers, FailurePolicy.HEADER_CONSUMER_GROUP, consumerGroup);
    add(headers, FailurePolicy.HEADER_ERROR_CLASS, reported.getClass().getName());
    add(
        headers,
        FailurePolicy.HEADER_ERROR_MESSAGE,
        truncate(String.valueOf(reported.getMessage())));
    add(headers, FailurePolicy.HEADER_ATTEMPTS, Integer.toString(attempts));
    producer.send(out).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The failure worth reporting: the processor's wrapper says less than what it wraps. */
  static Throwable reported(Throwable error) {
    return error instanceof EventProcessingException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  private static void add(Headers headers, String key, String value) {
    headers.remove(key);
    headers.add(key, value.getBytes(StandardCharsets.UTF_8));
  }

  private static String truncate(String message) {
    return message.length() <= MAX_MESSAGE_LENGTH
        ? message
        : message.substring(0, MAX_MESSAGE_LENGTH - 3) + "...";
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
