package io.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every record of some topics, from the beginning up to the end they have when reading
 * starts: what {@link LatencyReader} and {@link TopicAudit} read back after a run.
 */
final class TopicRecords {

  private TopicRecords() {}

  /**
   * Hands each record of the topics to {@code each}, partition by partition in offset order.
   *
   * @param bootstrap the broker
   * @param topics the topics
   * @param each what to do with a record
   */
  static void readAll(
      String bootstrap, List<String> topics, Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
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
        consumer.poll(Duration.ofMillis(200)).forEach(each);
      }
    }
  }

  /**
   * The record's event id: its last {@code id} header as UTF-8 text.
   *
   * @param r the record
   * @return the id, or {@code null} when the record has no {@code id} header
   */
  static String id(ConsumerRecord<byte[], byte[]> r) {
    Header id = r.headers().lastHeader("id");
    return id == null ? null : new String(id.value(), StandardCharsets.UTF_8);
  }
}
