package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The baseline consumer: a KafkaConsumer loop that applies each record in its own transaction on a
 * connection borrowed from the pool, and commits the offsets ({@code commitSync}) after each polled
 * batch. It does not deduplicate: a redelivered record is applied again.
 */
final class PlainConsumer {

  private PlainConsumer() {}

  /**
   * Reads {@code topic} from the beginning in a new consumer group until {@code expected} records
   * were applied.
   *
   * @param dataSource the consumer's pool; its connections have auto-commit off
   */
  static ConsumerRun consume(String bootstrap, String topic, int expected, DataSource dataSource)
      throws SQLException {
    Map<String, Object> props =
        Map.of(
            "bootstrap.servers",
            bootstrap,
            "group.id",
            "bench-plain-" + System.nanoTime(),
            "enable.auto.commit",
            "false",
            "auto.offset.reset",
            "earliest");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    long first = 0;
    long last = 0;
    int applied = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (applied < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the plain consumer applied " + applied + " of " + expected + " records in 10 min");
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (first == 0) {
            first = System.nanoTime();
          }
          try (Connection c = dataSource.getConnection()) {
            try {
              Payments.apply(r, c);
              c.commit();
            } catch (SQLException e) {
              c.rollback();
              throw e;
            }
          }
          last = System.nanoTime();
          applied++;
        }
        if (!records.isEmpty()) {
          consumer.commitSync();
        }
      }
    }
    return new ConsumerRun(applied, first, last);
  }
}
