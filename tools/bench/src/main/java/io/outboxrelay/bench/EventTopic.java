package io.outboxrelay.bench;

import io.outboxrelay.relay.config.ProducerSettings;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A topic filled with records as the relay publishes them (key = aggregate id, headers {@code id},
 * {@code event_type}, {@code aggregate_type}, {@code aggregate_id}, a ~300-byte JSON value), for
 * consumers to read.
 */
final class EventTopic {

  private static final int AGGREGATES = 1_000;

  private EventTopic() {}

  /** Creates {@code topic} with 3 partitions and produces {@code count} order events to it. */
  static void fill(String bootstrap, String topic, int count) throws Exception {
    try (TopicCounter counter = new TopicCounter(bootstrap)) {
      counter.createTopics(List.of(topic), 3, Map.of());
      Map<String, Object> props =
          new ProducerSettings(RelayMode.CDC, bootstrap, Map.of()).asProperties("bench-seed");
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
        for (int i = 0; i < count; i++) {
          producer.send(record(topic, BenchEvents.next(i, "order", AGGREGATES)));
        }
        producer.flush();
      }
      long in = counter.count(List.of(topic));
      if (in != count) {
        throw new IllegalStateException(topic + " holds " + in + " records, expected " + count);
      }
    }
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, TestEvent e) {
    RecordHeaders h = new RecordHeaders();
    h.add("id", e.eventId().getBytes(StandardCharsets.UTF_8));
    h.add("event_type", e.eventType().getBytes(StandardCharsets.UTF_8));
    h.add("aggregate_type", e.aggregateType().getBytes(StandardCharsets.UTF_8));
    h.add("aggregate_id", e.aggregateId().getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(
        topic,
        null,
        e.aggregateId().getBytes(StandardCharsets.UTF_8),
        e.payload().getBytes(StandardCharsets.UTF_8),
        h);
  }
}
