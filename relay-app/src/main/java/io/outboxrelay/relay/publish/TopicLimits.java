package io.outboxrelay.relay.publish;

import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.router.RoutedRecord;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's limit on one batch of each topic ({@code max.message.bytes}, or the broker's {@code
 * message.max.bytes} for a topic not created yet), read with an admin client and kept for {@link
 * #TTL}.
 *
 * <p>Why: a broker refuses a batch over the topic's limit with {@code MESSAGE_TOO_LARGE}. Kafka's
 * producer (4.1) then splits the batch into batches of its own {@code batch.size} and sends them
 * again, which never succeeds when the topic's limit is below {@code batch.size}: it loops,
 * thousands of warnings a second, until a stack overflow kills its I/O thread (KAFKA-8350). So the
 * publisher checks each record against its topic's limit before sending it, which makes a record
 * too large for its topic poison with a reason that names the limit, and sends the records of a
 * topic whose limit is below {@code batch.size} one at a time, so that no batch of them holds two
 * records. A limit that cannot be read (no answer, no {@code DescribeConfigs} permission) counts as
 * unknown: records go out unchecked, as without this class, and it is asked again after {@link
 * #RETRY}.
 *
 * <p>Thread-safe.
 */
public final class TopicLimits implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);

  /** How long a limit that was read is trusted. */
  static final Duration TTL = Duration.ofMinutes(5);

  /** How long after a failed read it is asked again. */
  static final Duration RETRY = Duration.ofSeconds(30);

  /** The longest one read may take. */
  static final Duration TIMEOUT = Duration.ofSeconds(3);

  /** Reads the limits; a test gives its own. */
  interface Reader {
    /**
     * The limit of the topic, or of a topic the broker would create.
     *
     * @throws Exception when it cannot be read
     */
    int maxMessageBytes(String topic) throws Exception;
  }

  private record Entry(int bytes, long readAtNanos) {
    boolean known() {
      return bytes > 0;
    }
  }

  private final Reader reader;
  private final int batchSize;
  private final String context;
  private final LongSupplier nanos;
  private final Map<String, Entry> limits = new ConcurrentHashMap<>();
  private final Map<String, Boolean> warned = new ConcurrentHashMap<>();
  private final AdminReader admin;

  private TopicLimits(
      Reader reader, AdminReader admin, int batchSize, String context, LongSupplier nanos) {
    this.reader = reader;
    this.admin = admin;
    this.batchSize = batchSize;
    this.context = context;
    this.nanos = nanos;
  }

  /**
   * Limits read with an admin client made from the producer's connection and security settings.
   *
   * @param producerProperties the producer's configuration
   * @param batchSize the producer's {@code batch.size}
   * @param clientId the admin client's id
   * @param context the log prefix
   * @return the limits; no client is created before the first read
   */
  public static TopicLimits of(
      Map<String, Object> producerProperties, int batchSize, String clientId, String context) {
    AdminReader admin = new AdminReader(KafkaProbe.adminProperties(producerProperties, clientId));
    return new TopicLimits(admin, admin, batchSize, context, System::nanoTime);
  }

  /** Limits from a reader of the caller's, for tests. */
  static TopicLimits of(Reader reader, int batchSize, LongSupplier nanos) {
    return new TopicLimits(reader, null, batchSize, "test", nanos);
  }

  /**
   * Checks a record against its topic's limit.
   *
   * @param record the record
   * @return {@code null} when it fits (or the limit is unknown), otherwise the exception the
   *     broker's refusal would bring, saying which limit and what to do
   */
  public RecordTooLargeException check(RoutedRecord record) {
    OptionalInt limit = limit(record.topic());
    if (limit.isEmpty()) {
      return null;
    }
    int size = RecordSizeLimit.serializedSize(record);
    if (size <= limit.getAsInt()) {
      return null;
    }
    return new RecordTooLargeException(
        "the record is "
            + size
            + " bytes as a batch of its own, more than the max.message.bytes of topic "
            + record.topic()
            + " ("
            + limit.getAsInt()
            + ")");
  }

  /**
   * Whether the records of this topic must be sent one at a time: its limit is below the producer's
   * {@code batch.size}, so a batch of several of them could be refused and split in a loop. Says so
   * once per topic, at WARN.
   *
   * @param topic the topic
   * @return true when its limit is known and below {@code batch.size}
   */
  public boolean oneAtATime(String topic) {
    OptionalInt limit = limit(topic);
    boolean small = limit.isPresent() && limit.getAsInt() < batchSize;
    if (small && warned.putIfAbsent(topic, Boolean.TRUE) == null) {
      LOG.warn(
          "[{}] topic {} accepts at most {} bytes per batch (max.message.bytes), less than the"
              + " producer's batch.size of {}: its records are sent one at a time, which is"
              + " slower. Raise the topic's max.message.bytes above {}, or set"
              + " kafka.producer.batch.size below {}",
          context,
          topic,
          limit.getAsInt(),
          batchSize,
          batchSize,
          limit.getAsInt());
    }
    return small;
  }

  /**
   * Forgets a topic's limit, to read it again: the broker refused a record the check let through
   * (the limit was lowered since it was read).
   *
   * @param topic the topic
   */
  public void forget(String topic) {
    limits.remove(topic);
  }

  private OptionalInt limit(String topic) {
    long now = nanos.getAsLong();
    Entry e = limits.get(topic);
    if (e == null || now - e.readAtNanos() > (e.known() ? TTL.toNanos() : RETRY.toNanos())) {
      e = read(topic, now);
      limits.put(topic, e);
    }
    return e.known() ? OptionalInt.of(e.bytes()) : OptionalInt.empty();
  }

  private Entry read(String topic, long now) {
    try {
      return new Entry(reader.maxMessageBytes(topic), now);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Entry(-1, now);
    } catch (Exception e) {
      LOG.info(
          "[{}] cannot read the max.message.bytes of topic {} ({}): its records are sent without"
              + " that check; asking again in {} s",
          context,
          topic,
          ErrorClassifier.describe(e),
          RETRY.toSeconds());
      return new Entry(-1, now);
    }
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
    }
  }

  /** Reads a topic's limit, or the broker's default for a topic that does not exist yet. */
  private static final class AdminReader implements Reader, AutoCloseable {

    private final Map<String, Object> properties;
    private Admin admin;

    AdminReader(Map<String, Object> properties) {
      this.properties = properties;
    }

    @Override
    public int maxMessageBytes(String topic) throws Exception {
      int ms = (int) TIMEOUT.toMillis();
      try {
        return value(
            describe(new ConfigResource(ConfigResource.Type.TOPIC, topic), ms),
            TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
      // Not created yet: it will be, with the broker's default.
      Collection<Node> nodes =
          admin()
              .describeCluster(new DescribeClusterOptions().timeoutMs(ms))
              .nodes()
              .get(ms + 1000L, TimeUnit.MILLISECONDS);
      Node node = nodes.iterator().next();
      return value(
          describe(new ConfigResource(ConfigResource.Type.BROKER, node.idString()), ms),
          "message.max.bytes");
    }

    private Config describe(ConfigResource resource, int ms)
        throws ExecutionException, InterruptedException, TimeoutException {
      return admin()
          .describeConfigs(List.of(resource), new DescribeConfigsOptions().timeoutMs(ms))
          .all()
          .get(ms + 1000L, TimeUnit.MILLISECONDS)
          .get(resource);
    }

    private static int value(Config config, String name) {
      ConfigEntry entry = config == null ? null : config.get(name);
      if (entry == null || entry.value() == null) {
        throw new IllegalStateException("the broker did not say its " + name);
      }
      return Integer.parseInt(entry.value().trim());
    }

    private synchronized Admin admin() {
      if (admin == null) {
        admin = Admin.create(properties);
      }
      return admin;
    }

    @Override
    public synchronized void close() {
      if (admin != null) {
        admin.close(Duration.ofSeconds(5));
        admin = null;
      }
    }
  }
}
