package io.outboxrelay.relay.publish;

import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.router.RoutedRecord;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.CompressionType;
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
 * records. The broker compares the batch as it arrives, compressed: a record whose upper bound is
 * over the limit is measured exactly, as a batch of its own compressed with the producer's codec
 * ({@link SingleRecordBatch}), so the check never refuses a record the broker would take.
 *
 * <p>Reading: a topic's first read is done by the caller, bounded by {@link #TIMEOUT}, since its
 * first records need the answer; later reads (after {@link #TTL}, or {@link #RETRY} after a
 * failure) run on a background thread while the last answer stands. A limit that cannot be read
 * counts as unknown: the topic's records go out unchecked against it (the producer's own {@code
 * max.request.size} still applies, and the broker refuses a record over its limit). When the broker
 * refuses {@code DescribeConfigs} (an ACL), one WARN says so and what is assumed; from then on no
 * read happens on the publishing thread, and each topic is asked again only after {@link
 * #DENIED_RETRY}.
 *
 * <p>Thread-safe.
 */
public final class TopicLimits implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);

  /** How long a limit that was read is trusted. */
  static final Duration TTL = Duration.ofMinutes(5);

  /** How long after a failed read it is asked again. */
  static final Duration RETRY = Duration.ofSeconds(30);

  /** How long after a refused read ({@code DescribeConfigs} not allowed) it is asked again. */
  static final Duration DENIED_RETRY = Duration.ofMinutes(10);

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

  /** A topic's limit as last read ({@code bytes > 0}, else unknown) and when to read it again. */
  private record Entry(int bytes, long nextReadNanos) {
    boolean known() {
      return bytes > 0;
    }
  }

  private final Reader reader;
  private final AutoCloseable readerResources;
  private final Executor background;
  private final int batchSize;
  private final int maxRequestSize;
  private final Compression codec;
  private final String context;
  private final LongSupplier nanos;
  private final Map<String, Entry> limits = new ConcurrentHashMap<>();
  private final Set<String> reading = ConcurrentHashMap.newKeySet();
  private final Set<String> warnedSmall = ConcurrentHashMap.newKeySet();
  private final Set<String> reportedFailures = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean warnedDenied = new AtomicBoolean();

  /** Whether the last read was refused for want of {@code DescribeConfigs}. */
  private volatile boolean denied;

  private TopicLimits(
      Reader reader,
      AutoCloseable readerResources,
      Executor background,
      int batchSize,
      int maxRequestSize,
      Compression codec,
      String context,
      LongSupplier nanos) {
    this.reader = reader;
    this.readerResources = readerResources;
    this.background = background;
    this.batchSize = batchSize;
    this.maxRequestSize = maxRequestSize;
    this.codec = codec;
    this.context = context;
    this.nanos = nanos;
  }

  /**
   * Limits read with an admin client made from the producer's connection and security settings.
   *
   * @param producerProperties the producer's configuration (its codec and {@code max.request.size}
   *     are read from it)
   * @param batchSize the producer's {@code batch.size}
   * @param clientId the admin client's id
   * @param context the log prefix
   * @return the limits; no client and no thread is created before the first read
   */
  public static TopicLimits of(
      Map<String, Object> producerProperties, int batchSize, String clientId, String context) {
    AdminLimitReader admin =
        new AdminLimitReader(KafkaProbe.adminProperties(producerProperties, clientId));
    return new TopicLimits(
        admin,
        admin,
        new LazyThread(clientId),
        batchSize,
        RecordSizeLimit.of(producerProperties).maxRequestSize(),
        SingleRecordBatch.codecOf(producerProperties),
        context,
        System::nanoTime);
  }

  /** Limits from a reader of the caller's, without compression, read on the caller's thread. */
  static TopicLimits of(Reader reader, int batchSize, LongSupplier nanos) {
    return of(reader, batchSize, Compression.NONE, nanos, Runnable::run);
  }

  /** Limits from a reader of the caller's, for tests. */
  static TopicLimits of(
      Reader reader, int batchSize, Compression codec, LongSupplier nanos, Executor background) {
    return new TopicLimits(reader, null, background, batchSize, 1_048_576, codec, "test", nanos);
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
    int upperBound = RecordSizeLimit.serializedSize(record);
    if (limit.isEmpty() || upperBound <= limit.getAsInt()) {
      return null; // the upper bound fits: no need to build the batch
    }
    if (upperBound > maxRequestSize) {
      return null; // the producer refuses it itself, naming its own limit, without compressing
    }
    int size = SingleRecordBatch.sizeOf(record, codec);
    if (size <= limit.getAsInt()) {
      return null;
    }
    return new RecordTooLargeException(
        "the record is "
            + size
            + " bytes as a batch of its own"
            + (codec.type() == CompressionType.NONE ? "" : " compressed with " + codec.type().name)
            + ", more than the max.message.bytes of topic "
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
    if (small && warnedSmall.add(topic)) {
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
    Entry e = limits.get(topic);
    if (e == null) {
      if (denied) {
        // The principal may not read limits: publishing does not wait for another refusal.
        limits.putIfAbsent(topic, new Entry(-1, nanos.getAsLong() + DENIED_RETRY.toNanos()));
        readInBackground(topic);
      } else {
        limits.put(topic, read(topic, null));
      }
      e = limits.get(topic);
    } else if (nanos.getAsLong() - e.nextReadNanos() >= 0) {
      readInBackground(topic);
      e = limits.getOrDefault(topic, e);
    }
    return e != null && e.known() ? OptionalInt.of(e.bytes()) : OptionalInt.empty();
  }

  private void readInBackground(String topic) {
    if (!reading.add(topic)) {
      return;
    }
    try {
      background.execute(
          () -> {
            try {
              limits.put(topic, read(topic, limits.get(topic)));
            } finally {
              reading.remove(topic);
            }
          });
    } catch (RejectedExecutionException closed) {
      reading.remove(topic);
    }
  }

  /** Reads a topic's limit; a failure keeps the limit known before, if any. */
  private Entry read(String topic, Entry previous) {
    int keep = previous != null && previous.known() ? previous.bytes() : -1;
    try {
      int bytes = reader.maxMessageBytes(topic);
      denied = false;
      return new Entry(bytes, nanos.getAsLong() + TTL.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Entry(keep, nanos.getAsLong() + RETRY.toNanos());
    } catch (Exception e) {
      if (refusedByAcl(e)) {
        denied = true;
        warnDenied(topic, e);
        return new Entry(keep, nanos.getAsLong() + DENIED_RETRY.toNanos());
      }
      reportFailure(topic, e);
      return new Entry(keep, nanos.getAsLong() + RETRY.toNanos());
    }
  }

  private static boolean refusedByAcl(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof AuthorizationException) {
        return true;
      }
    }
    return false;
  }

  /** Once per relay: the ACL to grant and what is checked meanwhile. */
  private void warnDenied(String topic, Exception e) {
    if (!warnedDenied.compareAndSet(false, true)) {
      LOG.debug("[{}] DescribeConfigs refused for topic {}", context, topic);
      return;
    }
    LOG.warn(
        "[{}] the relay's Kafka principal may not read topic configurations (DescribeConfigs"
            + " refused for topic {}: {}): records are checked against the producer's"
            + " max.request.size of {} bytes only, not against each topic's max.message.bytes;"
            + " the broker refuses a record over that (the event is then poison), and a topic"
            + " whose max.message.bytes is below the producer's batch.size of {} needs"
            + " kafka.producer.batch.size set below it. Allow the principal DescribeConfigs on the"
            + " outbox topics (and on the cluster, for topics not created yet) to have them"
            + " checked; each topic is asked again every {} min, off the publishing thread",
        context,
        topic,
        ErrorClassifier.describe(e),
        maxRequestSize,
        batchSize,
        DENIED_RETRY.toMinutes());
  }

  /** Once per topic at INFO; repeats at DEBUG. */
  private void reportFailure(String topic, Exception e) {
    if (reportedFailures.add(topic)) {
      LOG.info(
          "[{}] cannot read the max.message.bytes of topic {} ({}): its records are sent without"
              + " that check until it is read; asking again every {} s, off the publishing thread",
          context,
          topic,
          ErrorClassifier.describe(e),
          RETRY.toSeconds());
    } else {
      LOG.debug(
          "[{}] still cannot read the max.message.bytes of topic {} ({})",
          context,
          topic,
          ErrorClassifier.describe(e));
    }
  }

  @Override
  public void close() {
    if (background instanceof LazyThread t) {
      t.close();
    }
    if (readerResources != null) {
      try {
        readerResources.close();
      } catch (Exception e) {
        LOG.debug("[{}] closing the limit reader: {}", context, e.toString());
      }
    }
  }

  /** One daemon thread for the background reads, started on the first. */
  private static final class LazyThread implements Executor {
    private final String name;
    private ExecutorService executor;
    private boolean closed;

    LazyThread(String name) {
      this.name = name;
    }

    @Override
    public synchronized void execute(Runnable task) {
      if (closed) {
        throw new RejectedExecutionException("closed");
      }
      if (executor == null) {
        executor =
            Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, name + "-reader");
                  t.setDaemon(true);
                  return t;
                });
      }
      executor.execute(task);
    }

    synchronized void close() {
      closed = true;
      if (executor != null) {
        executor.shutdownNow();
      }
    }
  }
}
