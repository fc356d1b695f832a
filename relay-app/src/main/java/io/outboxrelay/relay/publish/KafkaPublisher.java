package io.outboxrelay.relay.publish;

import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.KafkaUnavailableException;
import io.outboxrelay.relay.failure.SendVerdict;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends batches of records with the relay's idempotent producer and reports, per record, whether
 * Kafka acknowledged it. It never retries and never decides what a failure means: callers do that
 * (CDC retries in place, polling reschedules in the database), with {@link ErrorClassifier}.
 *
 * <p>Records of one batch are handed to the producer in list order, so records with the same key
 * keep their order in their partition. {@link #sendAll} returns only when every record of the batch
 * is acknowledged or has failed.
 *
 * <p>Thread-safe: several threads may call {@link #sendAll} at once (the producer is shared).
 * {@link #reset()} discards the producer after a failure that may have left it unusable; the next
 * send creates a fresh one.
 */
public final class KafkaPublisher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);

  /** The result of sending one record: exactly one of the two fields is set. */
  public record Outcome(RecordMetadata metadata, Throwable error) {

    /**
     * Whether Kafka acknowledged the record.
     *
     * @return true when acknowledged
     */
    public boolean acknowledged() {
      return error == null;
    }

    /**
     * What becomes of the record's event.
     *
     * @return {@link SendVerdict#PUBLISHED} when acknowledged, otherwise what the failure means
     */
    public SendVerdict verdict() {
      return SendVerdict.of(error);
    }
  }

  /**
   * When a batch that Kafka does not acknowledge is first reported while the producer retries: an
   * operator learns of an outage within seconds (Kafka's own per-reconnect warnings are off).
   */
  private static final long FIRST_WARNING_NANOS = Duration.ofSeconds(10).toNanos();

  /** How often that report repeats. */
  private static final long WARN_EVERY_NANOS = Duration.ofSeconds(30).toNanos();

  /**
   * How long a record may wait for its acknowledgement before the publisher asks whether Kafka
   * answers at all; with {@link #STALL_PROBE_BUDGET} and the one-second wait steps, an outage is
   * reported within about 4.5 s.
   */
  static final Duration STALL = Duration.ofSeconds(2);

  /** How long that question may take. */
  static final Duration STALL_PROBE_BUDGET = Duration.ofMillis(1500);

  private final Supplier<Producer<byte[], byte[]>> factory;
  private final String context;
  private final KafkaBreaker breaker;
  private final TopicLimits topicLimits;
  private final Map<String, Object> topicLocks = new java.util.concurrent.ConcurrentHashMap<>();
  private Producer<byte[], byte[]> producer;
  private boolean closed;

  /**
   * Creates a publisher; the producer is created on first use.
   *
   * @param factory creates producers; called again after {@link #reset()}
   * @param context the log prefix
   */
  public KafkaPublisher(Supplier<Producer<byte[], byte[]>> factory, String context) {
    this(factory, context, null);
  }

  /**
   * Creates a publisher that tells a breaker when Kafka stops answering; the producer is created on
   * first use. While a record waits {@link #STALL} for its acknowledgement and Kafka does not
   * answer a metadata request either, the publisher {@link KafkaBreaker#open opens} the breaker,
   * which tells the operator (one WARN, one INFO when Kafka answers again); the records go on
   * waiting for the producer, which keeps retrying them.
   *
   * @param factory creates producers; called again after {@link #reset()}
   * @param context the log prefix
   * @param breaker the relay's breaker, or {@code null} to log the publisher's own warnings only
   */
  public KafkaPublisher(
      Supplier<Producer<byte[], byte[]>> factory, String context, KafkaBreaker breaker) {
    this(factory, context, breaker, null);
  }

  /**
   * Creates a publisher as {@link #KafkaPublisher(Supplier, String, KafkaBreaker)} that also checks
   * each record against its topic's broker limit before sending it ({@link TopicLimits}): a record
   * over it fails with {@link RecordTooLargeException} without reaching the producer, and the
   * records of a topic whose limit is below the producer's {@code batch.size} are sent one at a
   * time (the publisher waits for each one's acknowledgement before sending the next of that topic,
   * across threads).
   *
   * @param factory creates producers; called again after {@link #reset()}
   * @param context the log prefix
   * @param breaker the relay's breaker, or {@code null}
   * @param topicLimits the topics' limits, or {@code null} for no such check; closed with this
   */
  public KafkaPublisher(
      Supplier<Producer<byte[], byte[]>> factory,
      String context,
      KafkaBreaker breaker,
      TopicLimits topicLimits) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.context = Objects.requireNonNull(context, "context");
    this.breaker = breaker;
    this.topicLimits = topicLimits;
  }

  /**
   * Sends the records in order and waits until each is acknowledged or has failed. While Kafka does
   * not acknowledge, a warning is logged after 10 seconds and then every 30, unless the breaker
   * tells of an outage (see {@link #KafkaPublisher(Supplier, String, KafkaBreaker)}); the producer
   * itself keeps retrying until its {@code delivery.timeout.ms}.
   *
   * @param records the records; may be empty
   * @param timestamp the records' Kafka timestamp in epoch milliseconds, or {@code null} for the
   *     producer's clock
   * @param giveUp polled about once a second while waiting; when it returns true the records not
   *     yet acknowledged are reported as failed with {@link GaveUpException} (they may still reach
   *     Kafka)
   * @return one outcome per record, in the same order; when the producer cannot be created, every
   *     record fails with {@link KafkaUnavailableException}
   * @throws InterruptedException when interrupted while waiting
   */
  public List<Outcome> sendAll(List<RoutedRecord> records, Long timestamp, BooleanSupplier giveUp)
      throws InterruptedException {
    return sendAll(records, timestamp, giveUp, error -> false);
  }

  /**
   * Sends the records in order, as {@link #sendAll(List, Long, BooleanSupplier)}, but stops at the
   * first record Kafka refuses with an error {@code haltOn} accepts: no record after it reaches
   * Kafka from this call. A refusal known when the record is handed over (the producer's own
   * checks, the topic's metadata) stops handing over the records after it; a refusal by the broker
   * closes the producer at once from its acknowledgement callback, which aborts every record still
   * queued in it. The producer sends a partition's batches one request after another and runs the
   * callback before it sends the partition's next batch (with more requests in flight the broker
   * refuses that batch's sequence anyway), so a later record of the same key is never acknowledged
   * after an earlier one was refused. Records after the refused one fail with {@link
   * NotSentException} or the producer's abort; records of other partitions already acknowledged
   * stay acknowledged. The next send uses a new producer.
   *
   * @param records the records; may be empty
   * @param timestamp the records' Kafka timestamp in epoch milliseconds, or {@code null} for the
   *     producer's clock
   * @param giveUp as for {@link #sendAll(List, Long, BooleanSupplier)}
   * @param haltOn which failures stop the sending; called on the producer's I/O thread, so it must
   *     be quick and thread-safe
   * @return one outcome per record, in the same order
   * @throws InterruptedException when interrupted while waiting
   */
  public List<Outcome> sendAll(
      List<RoutedRecord> records,
      Long timestamp,
      BooleanSupplier giveUp,
      Predicate<Throwable> haltOn)
      throws InterruptedException {
    Producer<byte[], byte[]> p;
    try {
      p = producer();
    } catch (KafkaUnavailableException e) {
      // Nothing was sent: every record fails the same way, and the next send tries again.
      Outcome[] outcomes = new Outcome[records.size()];
      Arrays.fill(outcomes, new Outcome(null, e));
      return List.of(outcomes);
    }
    BatchSend send = new BatchSend(p, records, timestamp, giveUp, haltOn);
    send.handOver();
    send.awaitAcknowledgements();
    return send.outcomes();
  }

  /**
   * What became of one Kafka transaction ({@link #sendInTransaction}).
   *
   * @param outcomes one per record, in order; all acknowledged exactly when the transaction
   *     committed
   * @param committed whether the transaction committed: every record is visible to {@code
   *     read_committed} consumers
   * @param commitError why the commit itself failed after every record was acknowledged, or {@code
   *     null}: the transaction may or may not have committed, and only the next holder of the
   *     transactional id can tell (its {@code initTransactions()} completes or aborts it)
   * @param commitNanos how long the commit took, 0 when none was attempted
   */
  public record Transaction(
      List<Outcome> outcomes, boolean committed, Throwable commitError, long commitNanos) {}

  /**
   * Sends the records in one Kafka transaction of a transactional producer (the factory must have
   * called {@code initTransactions()}), and commits it once Kafka acknowledged every record.
   * Records are handed over in order as by {@link #sendAll(List, Long, BooleanSupplier,
   * Predicate)}, with the same halting.
   *
   * <p>When a record fails, or the caller gives up, nothing is committed: the producer is discarded
   * with its transaction open, and the next producer's {@code initTransactions()} (or the
   * coordinator's timeout) aborts it, so none of its records ever reaches a {@code read_committed}
   * consumer. The records Kafka had acknowledged then fail with {@link NotCommittedException} (sent
   * again), the others keep their own failure.
   *
   * @param records the records; at least one
   * @param giveUp as for {@link #sendAll(List, Long, BooleanSupplier)}
   * @param haltOn as for {@link #sendAll(List, Long, BooleanSupplier, Predicate)}
   * @return what became of the transaction
   * @throws InterruptedException when interrupted while waiting
   */
  public Transaction sendInTransaction(
      List<RoutedRecord> records, BooleanSupplier giveUp, Predicate<Throwable> haltOn)
      throws InterruptedException {
    Producer<byte[], byte[]> p;
    try {
      p = producer();
      p.beginTransaction();
    } catch (RuntimeException e) {
      // Kafka unreachable while initialising, or a producer fenced or failed: nothing was sent.
      reset();
      Throwable cause =
          e instanceof KafkaUnavailableException
              ? e
              : new KafkaUnavailableException(
                  "cannot begin a Kafka transaction (" + ErrorClassifier.describe(e) + ")", e);
      Outcome[] outcomes = new Outcome[records.size()];
      Arrays.fill(outcomes, new Outcome(null, ErrorClassifier.isFencing(e) ? e : cause));
      return new Transaction(List.of(outcomes), false, null, 0);
    }
    BatchSend send = new BatchSend(p, records, null, giveUp, haltOn);
    send.handOver();
    send.awaitAcknowledgements();
    List<Outcome> outcomes = send.outcomes();
    Throwable failed = null;
    for (Outcome o : outcomes) {
      if (!o.acknowledged()) {
        failed = o.error();
        break;
      }
    }
    if (failed == null) {
      long start = System.nanoTime();
      try {
        p.commitTransaction();
        return new Transaction(outcomes, true, null, System.nanoTime() - start);
      } catch (RuntimeException e) {
        abandon(p);
        Outcome[] uncertain = new Outcome[outcomes.size()];
        Arrays.fill(uncertain, new Outcome(null, new NotCommittedException(e)));
        return new Transaction(List.of(uncertain), false, e, System.nanoTime() - start);
      }
    }
    abandon(p);
    List<Outcome> aborted = new ArrayList<>(outcomes.size());
    for (Outcome o : outcomes) {
      aborted.add(o.acknowledged() ? new Outcome(null, new NotCommittedException(failed)) : o);
    }
    return new Transaction(aborted, false, null, 0);
  }

  /**
   * Discards a transactional producer with its transaction open: closing it sends nothing more, and
   * the transaction is aborted by the next {@code initTransactions()} of its id.
   */
  private void abandon(Producer<byte[], byte[]> p) {
    synchronized (this) {
      if (producer == p) {
        producer = null;
      }
    }
    p.close(Duration.ZERO);
  }

  /**
   * One call of {@link #sendAll}: first every record is handed to the producer in order, then the
   * caller waits for the acknowledgements in the same order. Confined to the calling thread, except
   * for the halting callback, which the producer's I/O thread runs.
   */
  private final class BatchSend {
    private final Producer<byte[], byte[]> inUse;
    private final List<RoutedRecord> records;
    private final Long timestamp;
    private final BooleanSupplier giveUp;
    private final Predicate<Throwable> haltOn;
    private final Thread caller = Thread.currentThread();
    private final AtomicBoolean halted = new AtomicBoolean();

    /** Per record: its outcome once known; set at hand-over for a record never handed over. */
    private final Outcome[] outcomes;

    /** Per record: the producer's future, or {@code null} when the outcome is already known. */
    private final List<Future<RecordMetadata>> futures;

    /**
     * A send that cannot get the topic's metadata blocks {@code max.block.ms}; the topic's later
     * records in this batch would block as long each, so they fail at once with the same error.
     */
    private final Map<String, RuntimeException> unavailableTopics = new HashMap<>();

    private long waitStart;
    private long nextWarning;
    private long nextStallCheck;
    private long closingsSeen; // the breaker's closings() when last looked at

    BatchSend(
        Producer<byte[], byte[]> inUse,
        List<RoutedRecord> records,
        Long timestamp,
        BooleanSupplier giveUp,
        Predicate<Throwable> haltOn) {
      this.inUse = inUse;
      this.records = records;
      this.timestamp = timestamp;
      this.giveUp = giveUp;
      this.haltOn = haltOn;
      this.outcomes = new Outcome[records.size()];
      this.futures = new ArrayList<>(records.size());
    }

    List<Outcome> outcomes() {
      return List.of(outcomes);
    }

    /** Hands each record to the producer in list order, or settles its outcome without sending. */
    void handOver() throws InterruptedException {
      for (int i = 0; i < records.size(); i++) {
        futures.add(handOver(i));
      }
    }

    /**
     * Hands record {@code i} to the producer.
     *
     * @return its future, or {@code null} when its outcome is settled without one
     */
    private Future<RecordMetadata> handOver(int i) throws InterruptedException {
      RoutedRecord record = records.get(i);
      if (halted.get()) {
        return settle(i, new NotSentException());
      }
      RuntimeException known = unavailableTopics.get(record.topic());
      if (known != null) {
        return settle(i, known);
      }
      RecordTooLargeException tooLarge = topicLimits == null ? null : topicLimits.check(record);
      if (tooLarge != null) {
        return refusedAtHandOver(i, tooLarge);
      }
      try {
        Future<RecordMetadata> f;
        if (topicLimits != null && topicLimits.oneAtATime(record.topic())) {
          f = sendAlone(inUse, record, timestamp, this::haltIfRefused, giveUp);
        } else {
          f = inUse.send(toProducerRecord(record, timestamp), this::haltIfRefused);
        }
        RuntimeException blocked = metadataTimeout(f);
        if (blocked != null) {
          unavailableTopics.put(record.topic(), blocked);
        }
        return f;
      } catch (RuntimeException e) {
        unavailableTopics.put(record.topic(), e);
        return refusedAtHandOver(i, e);
      }
    }

    private Future<RecordMetadata> settle(int i, Throwable error) {
      outcomes[i] = new Outcome(null, error);
      return null;
    }

    /** Record {@code i} failed before reaching the producer: it may halt the records after it. */
    private Future<RecordMetadata> refusedAtHandOver(int i, Exception error) {
      settle(i, error);
      haltIfRefused(null, error);
      return null;
    }

    /**
     * The acknowledgement callback: the first failure {@code haltOn} accepts halts the sending. On
     * the caller's thread the producer refused the record inside {@code send()} (or the record
     * never reached it): nothing after it was handed over, and the hand-over loop stops. Otherwise
     * the broker refused it and later records may be queued behind it: they must not follow it to
     * Kafka, so the producer is discarded at once.
     */
    private void haltIfRefused(RecordMetadata metadata, Exception error) {
      if (error != null && haltOn.test(error) && halted.compareAndSet(false, true)) {
        if (Thread.currentThread() != caller) {
          discard(inUse, error);
        }
      }
    }

    /**
     * Waits for the acknowledgement of each handed-over record, in order, about a second at a time;
     * meanwhile asks whether Kafka answers and warns while it does not acknowledge. When the caller
     * gives up, every record still unsettled fails with {@link GaveUpException}.
     */
    void awaitAcknowledgements() throws InterruptedException {
      waitStart = System.nanoTime();
      nextWarning = waitStart + FIRST_WARNING_NANOS;
      nextStallCheck = waitStart + STALL.toNanos();
      closingsSeen = breaker == null ? 0 : breaker.closings();
      for (int i = 0; i < futures.size(); i++) {
        Future<RecordMetadata> f = futures.get(i);
        while (f != null && outcomes[i] == null) {
          if (!awaitStep(i, f)) {
            giveUpFrom(i);
            return;
          }
        }
      }
    }

    /**
     * Waits up to a second for record {@code i}'s acknowledgement and settles its outcome if it
     * arrived.
     *
     * @return false when it did not arrive and the caller gives up
     */
    private boolean awaitStep(int i, Future<RecordMetadata> f) throws InterruptedException {
      try {
        outcomes[i] = new Outcome(f.get(1, TimeUnit.SECONDS), null);
        nextStallCheck = System.nanoTime() + STALL.toNanos();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (topicLimits != null && cause instanceof RecordTooLargeException) {
          topicLimits.forget(records.get(i).topic()); // the broker refused it: read the limit again
        }
        outcomes[i] = new Outcome(null, cause);
      } catch (TimeoutException e) {
        if (giveUp.getAsBoolean()) {
          return false;
        }
        openBreakerIfKafkaIsSilent();
        warnWhileUnacknowledged(i);
      }
      return true;
    }

    private void giveUpFrom(int i) {
      for (int k = i; k < outcomes.length; k++) {
        if (outcomes[k] == null) {
          outcomes[k] = new Outcome(null, new GaveUpException());
        }
      }
    }

    /**
     * After {@link #STALL} without an acknowledgement, asks whether Kafka answers a metadata
     * request at all, and opens the breaker when it does not.
     */
    private void openBreakerIfKafkaIsSilent() throws InterruptedException {
      if (breaker == null) {
        return;
      }
      long closings = breaker.closings();
      if (closings != closingsSeen) {
        // Kafka answered again since the last look: a broker just back may still be electing its
        // partition leaders, which the metadata probe would take for a new outage. A stall counts
        // from now.
        closingsSeen = closings;
        nextStallCheck = System.nanoTime() + STALL.toNanos();
        return;
      }
      if (System.nanoTime() - nextStallCheck >= 0) {
        nextStallCheck = System.nanoTime() + STALL.toNanos();
        if (!breaker.isOpen() && !breaker.answers(STALL_PROBE_BUDGET)) {
          breaker.open(
              "no acknowledgement for "
                  + secondsWaited()
                  + " s and no answer to a metadata request");
        }
      }
    }

    /**
     * Warns after {@link #FIRST_WARNING_NANOS} and then every {@link #WARN_EVERY_NANOS} while Kafka
     * does not acknowledge, unless the breaker is open (it tells of the outage itself).
     */
    private void warnWhileUnacknowledged(int i) {
      if (breaker != null && breaker.isOpen()) {
        nextWarning = System.nanoTime() + WARN_EVERY_NANOS;
      } else if (System.nanoTime() - nextWarning >= 0) {
        nextWarning += WARN_EVERY_NANOS;
        LOG.warn(
            "[{}] Kafka has not acknowledged {} of {} events for {} s; the producer keeps"
                + " retrying: check that the brokers are reachable",
            context,
            records.size() - i,
            records.size(),
            secondsWaited());
      }
    }

    private long secondsWaited() {
      return (System.nanoTime() - waitStart) / 1_000_000_000L;
    }
  }

  /**
   * Sends a record of a topic whose limit is below {@code batch.size} and waits until it is
   * acknowledged or has failed (or the caller gives up), holding the topic's lock meanwhile, so
   * that no batch of that topic holds two records, from this thread or another.
   */
  private Future<RecordMetadata> sendAlone(
      Producer<byte[], byte[]> p,
      RoutedRecord record,
      Long timestamp,
      Callback callback,
      BooleanSupplier giveUp)
      throws InterruptedException {
    synchronized (topicLocks.computeIfAbsent(record.topic(), t -> new Object())) {
      Future<RecordMetadata> f = p.send(toProducerRecord(record, timestamp), callback);
      while (!f.isDone() && !giveUp.getAsBoolean()) {
        try {
          f.get(1, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
          // the outcome is read by the caller's wait; a timeout only polls giveUp again
        }
      }
      return f;
    }
  }

  /**
   * The producer reports a topic whose metadata it could not get within {@code max.block.ms} as an
   * already failed future (Kafka 4 returns API errors of {@code send} that way).
   */
  private static RuntimeException metadataTimeout(Future<RecordMetadata> f) {
    if (!f.isDone()) {
      return null;
    }
    try {
      f.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException t ? t : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * The record was not handed to the producer: Kafka refused an earlier record of the same call in
   * a way that stopped the sending. It is not in Kafka.
   */
  public static final class NotSentException extends Exception {
    private static final long serialVersionUID = 1L;

    NotSentException() {
      super("not sent: Kafka refused an earlier record of this batch", null, false, false);
    }
  }

  /**
   * Kafka acknowledged the record, but the transaction it was sent in did not commit (another
   * record failed, or the commit did): a {@code read_committed} consumer never sees it, and it is
   * sent again. The cause is the failure that stopped the transaction.
   */
  public static final class NotCommittedException
      extends org.apache.kafka.common.errors.RetriableException {
    private static final long serialVersionUID = 1L;

    NotCommittedException(Throwable cause) {
      super("its transaction did not commit (" + ErrorClassifier.describe(cause) + ")", cause);
    }
  }

  /** The relay stopped waiting for an acknowledgement; the record may or may not be in Kafka. */
  public static final class GaveUpException extends Exception {
    private static final long serialVersionUID = 1L;

    GaveUpException() {
      super("stopped waiting for Kafka's acknowledgement", null, false, false);
    }
  }

  private static ProducerRecord<byte[], byte[]> toProducerRecord(
      RoutedRecord record, Long timestamp) {
    RecordHeaders headers = new RecordHeaders();
    for (RecordHeader h : record.headers()) {
      headers.add(h.name(), h.value());
    }
    return new ProducerRecord<>(
        record.topic(), null, timestamp, record.key(), record.value(), headers);
  }

  /**
   * Creates the producer now, on the caller's thread, unless one exists: for a transactional
   * producer this is its {@code initTransactions()}, which fences every earlier producer of its id.
   *
   * @throws KafkaUnavailableException when the producer cannot be created (its cause says why)
   */
  public void open() {
    producer();
  }

  /**
   * Creates the producer now, on a thread of its own, unless one exists: its class loading, its
   * connection and its producer id (which an idempotent producer asks for at once) are then done by
   * the first send instead of delaying it. A failure is left to the first send, which tries again.
   * Returns at once.
   */
  public void warmUp() {
    Thread t =
        new Thread(
            () -> {
              try {
                producer();
              } catch (RuntimeException e) {
                LOG.debug(
                    "[{}] the producer could not be created ahead: {}", context, e.toString());
              }
            },
            "kafka-producer-warm-up");
    t.setDaemon(true);
    t.start();
  }

  private synchronized Producer<byte[], byte[]> producer() {
    if (closed) {
      throw new IllegalStateException("publisher is closed");
    }
    if (producer == null) {
      try {
        producer = factory.get();
      } catch (RuntimeException e) {
        // Unresolvable bootstrap servers, a broken security setup: the relay's problem, not the
        // records'.
        throw new KafkaUnavailableException(
            "cannot create the Kafka producer (" + ErrorClassifier.describe(e) + ")", e);
      }
    }
    return producer;
  }

  /**
   * Closes a producer at once from its own callback, so that nothing still queued in it is sent;
   * the next send creates a new one.
   */
  private void discard(Producer<byte[], byte[]> p, Throwable cause) {
    synchronized (this) {
      if (producer == p) {
        producer = null;
      }
    }
    LOG.info(
        "[{}] Kafka refused a record ({}); closing the producer at once so that nothing queued"
            + " after it is sent",
        context,
        ErrorClassifier.describe(cause));
    p.close(Duration.ZERO);
  }

  /**
   * Discards the current producer at once (unfinished sends fail); the next send creates a new one.
   * Call it after a failure that may have left the producer in an error state.
   */
  public void reset() {
    Producer<byte[], byte[]> old;
    synchronized (this) {
      old = producer;
      producer = null;
    }
    if (old != null) {
      LOG.info("Replacing the Kafka producer after a failed send");
      old.close(Duration.ZERO);
    }
  }

  /**
   * Closes the producer, waiting up to {@code timeout} for records already sent. Idempotent.
   *
   * @param timeout how long to wait
   */
  public void close(Duration timeout) {
    Producer<byte[], byte[]> old;
    synchronized (this) {
      closed = true;
      old = producer;
      producer = null;
    }
    if (old != null) {
      old.close(timeout);
    }
    if (topicLimits != null) {
      topicLimits.close();
    }
  }

  /** Closes the producer, waiting up to 30 seconds for records already sent. */
  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }
}
