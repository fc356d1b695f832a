package io.outboxrelay.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * Counts the records in topics from their end offsets: cheap enough to poll every few milliseconds
 * without competing with the relay for CPU.
 */
final class TopicCounter implements AutoCloseable {

  private final Admin admin;

  TopicCounter(String bootstrapServers) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    this.admin = Admin.create(p);
  }

  /** Creates topics whose record timestamps are the broker's append time (the ack time). */
  void createLogAppendTimeTopics(List<String> topics, int partitions) throws Exception {
    createTopics(topics, partitions, Map.of("message.timestamp.type", "LogAppendTime"));
  }

  /** Creates topics with one replica and the given topic configs. */
  void createTopics(List<String> topics, int partitions, Map<String, String> configs)
      throws Exception {
    admin
        .createTopics(
            topics.stream()
                .map(t -> new NewTopic(t, partitions, (short) 1).configs(configs))
                .toList())
        .all()
        .get();
  }

  /** Waits until the topics hold at least {@code expected} records, polling every 10 ms. */
  void awaitCount(List<String> topics, long expected) throws InterruptedException {
    while (count(topics) < expected) {
      Thread.sleep(10);
    }
  }

  /**
   * Waits until the topics hold at least {@code expected} records, polling every 10 ms.
   *
   * @return false when they did not within {@code timeout}
   */
  boolean awaitCount(List<String> topics, long expected, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (count(topics) < expected) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /**
   * The number of records in the topics (sum of end offsets). Partitions are looked up once per
   * topic list, so each call is one small request.
   */
  long count(List<String> topics) throws InterruptedException {
    try {
      long total = 0;
      for (var e : admin.listOffsets(latest(topics)).all().get().values()) {
        total += e.offset();
      }
      return total;
    } catch (ExecutionException e) {
      return 0; // topics not created yet
    }
  }

  /**
   * The broker's append times (the topics' timestamps are {@code LogAppendTime}) of the first
   * record appended at or after {@code fromMillis} and of the last record, over all partitions.
   *
   * @return the two times in epoch milliseconds; {@code first} is -1 when no record is that recent
   */
  AppendTimes appendTimes(List<String> topics, long fromMillis) throws Exception {
    Map<TopicPartition, OffsetSpec> first = new HashMap<>();
    Map<TopicPartition, OffsetSpec> last = new HashMap<>();
    for (TopicPartition tp : latest(topics).keySet()) {
      first.put(tp, OffsetSpec.forTimestamp(fromMillis));
      last.put(tp, OffsetSpec.maxTimestamp());
    }
    long firstAppend = Long.MAX_VALUE;
    for (var e : admin.listOffsets(first).all().get().values()) {
      if (e.offset() >= 0 && e.timestamp() >= 0) {
        firstAppend = Math.min(firstAppend, e.timestamp());
      }
    }
    long lastAppend = -1;
    for (var e : admin.listOffsets(last).all().get().values()) {
      lastAppend = Math.max(lastAppend, e.timestamp());
    }
    return new AppendTimes(firstAppend == Long.MAX_VALUE ? -1 : firstAppend, lastAppend);
  }

  /** Append times in epoch milliseconds, from {@link #appendTimes}. */
  record AppendTimes(long first, long last) {}

  private Map<TopicPartition, OffsetSpec> latest(List<String> topics)
      throws InterruptedException, ExecutionException {
    if (!topics.equals(partitionsOf)) {
      Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
      request.clear();
      described
          .values()
          .forEach(
              d ->
                  d.partitions()
                      .forEach(
                          p ->
                              request.put(
                                  new TopicPartition(d.name(), p.partition()),
                                  OffsetSpec.latest())));
      partitionsOf = List.copyOf(topics);
    }
    return request;
  }

  private final Map<TopicPartition, OffsetSpec> request = new HashMap<>();
  private List<String> partitionsOf = List.of();

  @Override
  public void close() {
    admin.close();
  }
}
