package io.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a pipeline published, read back from its topics (from the beginning to their end when read):
 * each expected event looked up by its {@code id} header, so that a figure counts only when every
 * event arrived; and the latency of the timed events, the broker's append time (the topics'
 * timestamps are {@code LogAppendTime}) minus the commit time.
 *
 * @param records the records read
 * @param missing expected ids not found
 * @param duplicates records beyond the first of an id
 * @param unexpected records without an {@code id} header or with an id not expected
 * @param headers the header names of the first record, in order
 * @param latency of the timed events found, in milliseconds
 */
record TopicAudit(
    long records,
    long missing,
    long duplicates,
    long unexpected,
    List<String> headers,
    Percentiles latency) {

  /** Every expected event arrived: the pipeline's figures count. */
  boolean complete() {
    return missing == 0;
  }

  /**
   * Reads the topics.
   *
   * @param expected the ids of every event written
   * @param commitMillis commit time (ms, wall clock) of the timed events, by id
   */
  static TopicAudit read(
      String bootstrap, List<String> topics, Set<String> expected, Map<String, Long> commitMillis) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    Map<String, Integer> seen = new HashMap<>(expected.size() * 2);
    List<Double> latencies = new ArrayList<>(commitMillis.size());
    List<String> headers = new ArrayList<>();
    long records = 0;
    long unexpected = 0;
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
          if (records++ == 0) {
            r.headers().forEach(h -> headers.add(h.key()));
          }
          Header idHeader = r.headers().lastHeader("id");
          String id =
              idHeader == null ? null : new String(idHeader.value(), StandardCharsets.UTF_8);
          if (id == null || !expected.contains(id)) {
            unexpected++;
          } else if (seen.merge(id, 1, Integer::sum) == 1 && commitMillis.containsKey(id)) {
            latencies.add((double) (r.timestamp() - commitMillis.get(id)));
          }
        }
      }
    }
    long duplicates = seen.values().stream().mapToLong(n -> n - 1).sum();
    return new TopicAudit(
        records,
        expected.size() - seen.size(),
        duplicates,
        unexpected,
        headers,
        Percentiles.of(latencies.stream().mapToDouble(Double::doubleValue).toArray()));
  }

  /** One line for the log: what was read and what is wrong, if anything. */
  String describe() {
    return String.format(
        "%,d records; %,d expected ids missing, %,d duplicates, %,d unexpected; headers %s",
        records, missing, duplicates, unexpected, headers.isEmpty() ? "-" : headers);
  }
}
