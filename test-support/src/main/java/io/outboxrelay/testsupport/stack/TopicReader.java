package io.outboxrelay.testsupport.stack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads everything in some topics, from the beginning, for assertions such as "exactly these
 * records" and "no more records".
 *
 * <p>Every read uses a fresh consumer that assigns itself all partitions of the topics (no consumer
 * group, nothing committed, topics are never auto-created by reading), starts at the beginning and
 * returns the records in the order they were consumed: offset order within a partition, partitions
 * interleaved. Topics and partitions that appear while a read runs are picked up. By default only
 * committed records of transactional producers are read ({@code read_committed}).
 *
 * <pre>{@code
 * TopicReader reader = TopicReader.forTopics(kafka.bootstrapServers(), "outbox.event.order");
 * List<ConsumedRecord> records = reader.readUntil(r -> r.size() >= 10, Duration.ofSeconds(30));
 * assertThat(reader.readAll(Duration.ofSeconds(2))).hasSize(10); // and nothing more arrives
 * }</pre>
 *
 * <p>Immutable and thread-safe; concurrent reads use separate consumers.
 */
public final class TopicReader {

  private static final Duration POLL = Duration.ofMillis(100);
  private static final long TOPIC_REFRESH_NANOS = Duration.ofMillis(500).toNanos();
  private static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(60);
  private static final AtomicLong CLIENT_IDS = new AtomicLong();

  private final String bootstrapServers;
  private final Predicate<String> topicFilter;
  private final String description;
  private final boolean readCommitted;

  private TopicReader(
      String bootstrapServers,
      Predicate<String> topicFilter,
      String description,
      boolean readCommitted) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.topicFilter = topicFilter;
    this.description = description;
    this.readCommitted = readCommitted;
  }

  /**
   * A reader of the named topics; a topic that does not exist yet reads as empty until it is
   * created.
   *
   * @param bootstrapServers the brokers
   * @param topics the topic names
   * @return a reader
   */
  public static TopicReader forTopics(String bootstrapServers, String... topics) {
    Set<String> names = Set.of(topics);
    return new TopicReader(bootstrapServers, names::contains, "topics " + names, true);
  }

  /**
   * A reader of all topics whose whole name matches a regex, e.g. {@code outbox\.event\..*}.
   *
   * @param bootstrapServers the brokers
   * @param topicPattern matched against the whole topic name
   * @return a reader
   */
  public static TopicReader forPattern(String bootstrapServers, Pattern topicPattern) {
    return new TopicReader(
        bootstrapServers,
        topic -> topicPattern.matcher(topic).matches(),
        "topics matching " + topicPattern,
        true);
  }

  /**
   * A reader of all topics whose name starts with a prefix, e.g. a test's {@code t-name.}.
   *
   * @param bootstrapServers the brokers
   * @param prefix the topics' common prefix, taken literally
   * @return a reader
   */
  public static TopicReader forPrefix(String bootstrapServers, String prefix) {
    return forPattern(bootstrapServers, Pattern.compile(Pattern.quote(prefix) + ".*"));
  }

  /**
   * A copy of this reader that also returns records of open and aborted transactions ({@code
   * read_uncommitted}).
   *
   * @return a new reader
   */
  public TopicReader includingUncommitted() {
    return new TopicReader(bootstrapServers, topicFilter, description, false);
  }

  /**
   * Reads from the beginning until {@code condition} holds for the records read so far, or the
   * timeout passes. The condition is tested after every poll, also when nothing new arrived.
   *
   * @param condition tested on the records read so far
   * @param timeout how long to try
   * @return the records read, unmodifiable; the caller asserts on them (the condition may not hold
   *     if the timeout passed)
   */
  public List<ConsumedRecord> readUntil(
      Predicate<List<ConsumedRecord>> condition, Duration timeout) {
    try (Session session = new Session()) {
      session.pollUntil(condition, timeout);
      return List.copyOf(session.records);
    }
  }

  /**
   * Reads from the beginning until no new record arrived for {@code quietPeriod} (at most 60 s in
   * total).
   *
   * @param quietPeriod how long the topics must stay quiet
   * @return every record read, unmodifiable
   */
  public List<ConsumedRecord> readAll(Duration quietPeriod) {
    return readAll(quietPeriod, DEFAULT_MAX_WAIT);
  }

  /**
   * Reads from the beginning until no new record arrived for {@code quietPeriod}, or {@code
   * maxWait} passed.
   *
   * @param quietPeriod how long the topics must stay quiet
   * @param maxWait the upper bound of the whole read
   * @return every record read, unmodifiable
   */
  public List<ConsumedRecord> readAll(Duration quietPeriod, Duration maxWait) {
    try (Session session = new Session()) {
      session.pollUntilQuiet(quietPeriod, maxWait);
      return List.copyOf(session.records);
    }
  }

  /**
   * Reads from the beginning until {@code condition} holds for the records read so far (or {@code
   * timeout} passed), then reads on with the same consumer until no new record arrived for {@code
   * quietPeriod} (or {@code maxWait} more passed): {@link #readUntil} followed by {@link
   * #readAll(Duration, Duration)}, without a second consumer reading everything again.
   *
   * @param condition tested on the records read so far, after every poll
   * @param timeout how long to wait for the condition
   * @param quietPeriod how long the topics must stay quiet after it
   * @param maxWait the upper bound of the quiet read
   * @return every record read, unmodifiable; the caller asserts on them (the condition may not hold
   *     if the timeout passed)
   */
  public List<ConsumedRecord> readUntilQuiet(
      Predicate<List<ConsumedRecord>> condition,
      Duration timeout,
      Duration quietPeriod,
      Duration maxWait) {
    try (Session session = new Session()) {
      session.pollUntil(condition, timeout);
      session.pollUntilQuiet(quietPeriod, maxWait);
      return List.copyOf(session.records);
    }
  }

  @Override
  public String toString() {
    return "TopicReader[" + description + " at " + bootstrapServers + "]";
  }

  /** One read: a consumer, the partitions it has assigned and what it has read. Not shared. */
  private final class Session implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(consumerProperties());
    private final Set<TopicPartition> assigned = new HashSet<>();
    private final List<ConsumedRecord> records = new ArrayList<>();
    private long lastRefresh;
    private boolean refreshedOnce;

    List<ConsumedRecord> readOnly() {
      return Collections.unmodifiableList(records);
    }

    /** Polls until the condition holds for the records read so far, or the timeout passed. */
    void pollUntil(Predicate<List<ConsumedRecord>> condition, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      do {
        poll();
        if (condition.test(readOnly())) {
          return;
        }
      } while (System.nanoTime() - deadline < 0);
    }

    /** Polls until nothing new arrived for the quiet period, or {@code maxWait} passed. */
    void pollUntilQuiet(Duration quietPeriod, Duration maxWait) {
      long start = System.nanoTime();
      long lastArrival = start;
      while (System.nanoTime() - start < maxWait.toNanos()) {
        if (poll() > 0) {
          lastArrival = System.nanoTime();
        } else if (System.nanoTime() - lastArrival >= quietPeriod.toNanos()) {
          return;
        }
      }
    }

    /** Polls once, refreshing the assignment when due; returns how many records arrived. */
    int poll() {
      if (!refreshedOnce || System.nanoTime() - lastRefresh > TOPIC_REFRESH_NANOS) {
        refreshAssignment();
      }
      if (assigned.isEmpty()) {
        ChildProcess.pauseBriefly();
        return 0;
      }
      int count = 0;
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
        records.add(toConsumed(record));
        count++;
      }
      return count;
    }

    private void refreshAssignment() {
      refreshedOnce = true;
      lastRefresh = System.nanoTime();
      List<TopicPartition> added = new ArrayList<>();
      for (Map.Entry<String, List<PartitionInfo>> topic :
          consumer.listTopics(Duration.ofSeconds(5)).entrySet()) {
        if (!topicFilter.test(topic.getKey())) {
          continue;
        }
        for (PartitionInfo partition : topic.getValue()) {
          TopicPartition tp = new TopicPartition(partition.topic(), partition.partition());
          if (assigned.add(tp)) {
            added.add(tp);
          }
        }
      }
      if (!added.isEmpty()) {
        consumer.assign(new ArrayList<>(assigned));
        consumer.seekToBeginning(added);
      }
    }

    private ConsumedRecord toConsumed(ConsumerRecord<byte[], byte[]> record) {
      Map<String, byte[]> headers = new LinkedHashMap<>();
      for (Header header : record.headers()) {
        headers.put(header.key(), header.value());
      }
      return new ConsumedRecord(
          record.topic(),
          record.partition(),
          record.offset(),
          record.key(),
          headers,
          record.value(),
          record.timestamp());
    }

    @Override
    public void close() {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private Properties consumerProperties() {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(
        ConsumerConfig.CLIENT_ID_CONFIG,
        "local-stack-topic-reader-" + CLIENT_IDS.incrementAndGet());
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        readCommitted ? "read_committed" : "read_uncommitted");
    return properties;
  }
}
