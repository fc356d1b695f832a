package io.outboxrelay.bench;

import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.kafka.ConsumerListener;
import io.outboxrelay.idempotency.kafka.IdempotentConsumer;
import io.outboxrelay.router.Dialect;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The library's consumer: {@link IdempotentConsumer} over an {@link IdempotentProcessor}, each
 * record's id and business change in one transaction, with the same business write as {@link
 * PlainConsumer}.
 */
final class IdempotentConsumerRun {

  private IdempotentConsumerRun() {}

  /**
   * Reads {@code topic} from the beginning in a new consumer group until {@code expected} records
   * were processed, then closes the consumer.
   *
   * @param dataSource the consumer's database, holding {@code processed_events} and {@code
   *     payments}
   */
  static ConsumerRun consume(String bootstrap, String topic, int expected, DataSource dataSource) {
    String group = "bench-idempotent-" + System.nanoTime();
    AtomicLong first = new AtomicLong();
    AtomicLong last = new AtomicLong();
    AtomicLong processed = new AtomicLong();
    AtomicReference<IdempotentConsumer> self = new AtomicReference<>();
    IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafkaProperties(Map.of("bootstrap.servers", bootstrap, "group.id", group))
            .topics(topic)
            .processor(
                IdempotentProcessor.builder(dataSource, group).dialect(Dialect.MYSQL).build())
            .handler(
                (record, connection) -> {
                  first.compareAndSet(0, System.nanoTime());
                  Payments.apply(record, connection);
                })
            .listener(
                new ConsumerListener() {
                  @Override
                  public void afterDatabaseCommit(
                      ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
                    if (outcome == Outcome.PROCESSED && processed.incrementAndGet() == expected) {
                      last.set(System.nanoTime());
                      self.get().close(); // on the loop's thread: only asks it to stop
                    }
                  }
                })
            .build();
    self.set(consumer);
    ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    watchdog.schedule(consumer::close, 10, TimeUnit.MINUTES);
    try {
      consumer.run();
    } finally {
      watchdog.shutdownNow();
    }
    if (processed.get() != expected) {
      throw new IllegalStateException(
          "the idempotent consumer processed " + processed + " of " + expected + " records");
    }
    return new ConsumerRun(processed.get(), first.get(), last.get());
  }
}
