package io.outboxrelay.examples;

import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.kafka.ConsumerListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * What the notification service's consumer did with each record, as its {@link ConsumerListener}
 * reports it after the database commit; the demo waits on it. Thread-safe: the consumer's thread
 * adds, the demo's thread waits.
 */
final class Deliveries implements ConsumerListener {

  /** One record's outcome. */
  record Delivery(String topic, int partition, long offset, String eventId, Outcome outcome) {}

  private final List<Delivery> seen = new ArrayList<>();

  @Override
  public synchronized void afterDatabaseCommit(
      ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
    Header id = record.headers().lastHeader("id");
    seen.add(
        new Delivery(
            record.topic(),
            record.partition(),
            record.offset(),
            id == null ? null : new String(id.value(), StandardCharsets.UTF_8),
            outcome));
    notifyAll();
  }

  /**
   * Waits until the deliveries so far satisfy {@code condition}.
   *
   * @return the deliveries so far, or empty if the timeout passed first
   */
  synchronized Optional<List<Delivery>> awaitUntil(
      Predicate<List<Delivery>> condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.test(seen)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return Optional.of(List.copyOf(seen));
  }

  /** The deliveries so far. */
  synchronized List<Delivery> all() {
    return List.copyOf(seen);
  }
}
