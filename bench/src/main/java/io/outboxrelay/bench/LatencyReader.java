package io.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads topics whose record timestamps are the broker's append time (see {@link
 * TopicCounter#createLogAppendTimeTopics}) from the beginning up to their current end, and gives
 * the latency of each timed event: append time minus commit time. Records of events without a
 * commit time (a backlog published before) are skipped.
 */
final class LatencyReader {

  private LatencyReader() {}

  /**
   * @param commitMillis commit time (ms, wall clock) by event id, the record header {@code id}
   * @return the latencies in milliseconds of the timed events found
   */
  static Percentiles read(String bootstrap, List<String> topics, Map<String, Long> commitMillis) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    double[] values = new double[commitMillis.size()];
    int n = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String t : topics) {
        consumer
            .partitionsFor(t)
            .forEach(i -> partitions.add(new TopicPartition(t, i.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Header id = r.headers().lastHeader("id");
          Long committed =
              id == null ? null : commitMillis.get(new String(id.value(), StandardCharsets.UTF_8));
          if (committed != null && n < values.length) {
            values[n++] = r.timestamp() - committed;
          }
        }
      }
    }
    return Percentiles.of(Arrays.copyOf(values, n));
  }
}
