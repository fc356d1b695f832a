package io.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer as an application runs one: {@code isolation.level=read_committed}, the client's fetch
 * defaults, polling in a thread of its own from the moment it is created. For each event (the
 * record header {@code id}) it keeps the wall-clock time at which the first copy was returned by
 * {@code poll()}: the moment the event became visible to the application, which for a record of a
 * Kafka transaction is after the transaction committed (its records are appended before the commit;
 * a {@code read_committed} fetch stops at the last stable offset). It also keeps the broker's
 * append time of that copy (the topics' timestamps are {@code LogAppendTime}), and counts every
 * record, so that copies beyond the first are duplicates.
 *
 * <p>Thread-safe: the accessors may be called while it reads.
 */
final class VisibleReader implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(VisibleReader.class);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<String, Seen> seen = new ConcurrentHashMap<>();
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong withoutId = new AtomicLong();
  private final Thread thread;
  private volatile long lastVisibleMillis = -1;
  private volatile boolean closing;
  private volatile RuntimeException failure;

  /**
   * Assigns itself every partition of the topics, from the beginning, and starts polling.
   *
   * @param topics existing topics
   */
  VisibleReader(String bootstrap, List<String> topics) {
    this.consumer = new KafkaConsumer<>(properties(bootstrap));
    List<TopicPartition> partitions = new ArrayList<>();
    for (String t : topics) {
      consumer.partitionsFor(t).forEach(i -> partitions.add(new TopicPartition(t, i.partition())));
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    partitions.forEach(consumer::position); // positioned before anything is timed
    this.thread = new Thread(this::run, "visible-reader");
    thread.setDaemon(true);
    thread.start();
  }

  /** The consumer's settings: an application's, with read_committed stated rather than assumed. */
  static Properties properties(String bootstrap) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-visible-reader-" + System.nanoTime());
    return p;
  }

  private void run() {
    try {
      while (!closing) {
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
        if (polled.isEmpty()) {
          continue;
        }
        long now = System.currentTimeMillis();
        lastVisibleMillis = now; // before the count: a waiter that sees the count sees this time
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          Header id = r.headers().lastHeader("id");
          if (id == null) {
            withoutId.incrementAndGet();
          } else {
            seen.putIfAbsent(
                new String(id.value(), StandardCharsets.UTF_8), new Seen(now, r.timestamp()));
          }
          records.incrementAndGet();
        }
      }
    } catch (org.apache.kafka.common.errors.WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      failure = e;
      LOG.error("the read_committed consumer failed", e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * Waits until at least {@code count} records were returned.
   *
   * @return whether they were, within the timeout
   * @throws IllegalStateException when the consumer failed
   */
  boolean awaitRecords(long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (records.get() < count) {
      if (failure != null) {
        throw new IllegalStateException("the read_committed consumer failed", failure);
      }
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    return true;
  }

  /** Records returned so far, duplicates and records without an id included. */
  long records() {
    return records.get();
  }

  /** Records without an {@code id} header. */
  long withoutId() {
    return withoutId.get();
  }

  /** Distinct events returned so far. */
  int distinct() {
    return seen.size();
  }

  /** The wall-clock time (ms) of the last poll that returned records; -1 before the first. */
  long lastVisibleMillis() {
    return lastVisibleMillis;
  }

  /**
   * The first copy of an event the consumer returned.
   *
   * @param visibleMillis when {@code poll()} returned it (ms, wall clock)
   * @param appendMillis the broker's append time of the record (ms)
   */
  record Seen(long visibleMillis, long appendMillis) {}

  /** The first copy of the event returned; null when none was yet. */
  Seen seen(String id) {
    return seen.get(id);
  }

  @Override
  public void close() throws InterruptedException {
    closing = true;
    consumer.wakeup();
    thread.join(TimeUnit.SECONDS.toMillis(10));
  }

  /** Transactions of one record each that {@link #proveReadCommitted} times. */
  static final int PROBES = 10;

  /**
   * Proves on a topic of its own that this consumer's records are visible only once their
   * transaction committed, and times how long after the commit they become visible: a record of an
   * open transaction, acknowledged by the broker, must stay invisible for a second, then appear
   * after {@code commitTransaction()}; {@value #PROBES} transactions of one record are timed so.
   * ({@code commitTransaction()} returns once the coordinator has logged the commit; the markers
   * that let a {@code read_committed} fetch past the records are written after that.)
   *
   * @param counter creates the topic
   * @return the milliseconds from each commit's return to its record's visibility
   * @throws IllegalStateException when a record was seen before its commit, or not after it
   */
  static Percentiles proveReadCommitted(String bootstrap, TopicCounter counter) throws Exception {
    String topic = "bench-eos-probe-" + Long.toHexString(System.nanoTime());
    counter.createLogAppendTimeTopics(List.of(topic), 1);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    double[] millis = new double[PROBES];
    try (VisibleReader reader = new VisibleReader(bootstrap, List.of(topic));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      for (int i = 0; i < PROBES; i++) {
        String id = "probe-" + i;
        producer.beginTransaction();
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, new byte[] {1});
        record.headers().add("id", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get(); // appended, not committed
        if (i == 0 && reader.awaitRecords(1, Duration.ofSeconds(1))) {
          throw new IllegalStateException(
              "the latency consumer saw a record of an open transaction: it does not read"
                  + " committed");
        }
        producer.commitTransaction();
        long committed = System.currentTimeMillis();
        if (!reader.awaitRecords(i + 1, Duration.ofSeconds(30))) {
          throw new IllegalStateException(
              "the latency consumer did not see a committed transaction's record within 30 s");
        }
        millis[i] = reader.seen(id).visibleMillis() - committed;
      }
    }
    return Percentiles.of(millis);
  }
}
