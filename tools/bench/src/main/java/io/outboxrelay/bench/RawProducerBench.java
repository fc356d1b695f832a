package io.outboxrelay.bench;

import io.outboxrelay.relay.config.ProducerSettings;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The physical limit of the box: a plain KafkaProducer with the relay's settings sending the same
 * records (topic, key, four headers, ~300-byte value) as fast as it can.
 */
final class RawProducerBench {

  private RawProducerBench() {}

  static void run(String bootstrap, int events, ResultTable table) {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Map<String, Object> props =
        new ProducerSettings(RelayMode.CDC, bootstrap, Map.of()).asProperties("bench-raw");
    List<TestEvent> warmup = BenchEvents.batch(0, 20_000);
    List<TestEvent> measured = BenchEvents.batch(0, events);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      send(producer, warmup);
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      send(producer, measured);
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
      table.add(
          "raw KafkaProducer, same records (physical limit)",
          String.format("%,.0f events/s", events / seconds),
          "-",
          String.format(
              "%,d events in %.2f s; %.1f µs CPU/event in the sending JVM",
              events, seconds, cpu * 1e6 / events));
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, List<TestEvent> events) {
    for (TestEvent e : events) {
      RecordHeaders h = new RecordHeaders();
      h.add("id", e.eventId().getBytes(StandardCharsets.UTF_8));
      h.add("event_type", e.eventType().getBytes(StandardCharsets.UTF_8));
      h.add("aggregate_type", e.aggregateType().getBytes(StandardCharsets.UTF_8));
      h.add("aggregate_id", e.aggregateId().getBytes(StandardCharsets.UTF_8));
      producer.send(
          new ProducerRecord<>(
              "bench-raw." + e.aggregateType(),
              null,
              null,
              e.aggregateId().getBytes(StandardCharsets.UTF_8),
              e.payload().getBytes(StandardCharsets.UTF_8),
              h));
    }
    producer.flush();
  }
}
