package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.KafkaUnavailableException;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.router.RoutedRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One leader term's Kafka transactions with {@code delivery.guarantee=exactly-once}: two
 * transactional producers whose {@code transactional.id}s are the same for every relay of the table
 * ({@link io.outboxrelay.relay.config.DeliveryConfig#transactionalIds()}), and the {@link
 * ProgressTopic} where each batch's position is committed with its records.
 *
 * <p>The producers take turns: after a committed transaction the next one goes through the other
 * producer, whose previous transaction's markers have long been written, so that it does not wait
 * for the markers of the one just committed (see {@link
 * io.outboxrelay.relay.config.DeliveryConfig#TRANSACTIONAL_PRODUCERS}). A transaction that did not
 * commit is sent again through the same producer: re-creating it ({@code initTransactions()})
 * aborts the open transaction before anything else is sent, so no open transaction of this relay
 * holds back what a {@code read_committed} consumer may read. Transactions never overlap.
 *
 * <p>At the start of a term ({@link #start}) each producer's {@code initTransactions()} fences
 * every earlier holder of its id (a deposed leader, a frozen process that wakes, this relay's
 * previous term) and completes or aborts the transaction it left open; only then is the progress
 * topic read, so the position read is where the records in Kafka end. A producer fenced later means
 * another relay started a term: this one stops publishing and ends its term ({@code onFenced}), and
 * the election decides who leads.
 *
 * <p>The position in the database is still written after each commit (status, hand-off, retention
 * read it); at the start of a term the committed one wins where they differ ({@link
 * CommittedPosition}). Thread-safe.
 */
final class ExactlyOnce implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnce.class);

  /** The pause between attempts while Kafka does not answer at the start of a term. */
  private static final Duration START_RETRY = Duration.ofSeconds(1);

  private final List<KafkaPublisher> publishers;
  private int turn; // guarded by this: the index of the publisher of the next transaction
  private final ProgressTopic progress;
  private final RelayMetrics metrics;
  private final String context;
  private final String transactionalId;
  private final Consumer<String> onFenced;
  private final AtomicBoolean fenced = new AtomicBoolean();
  private final BooleanSupplier mayPublish;
  private volatile boolean closed;

  /**
   * @param config the relay configuration, with exactly-once delivery
   * @param publishers the term's transactional publishers, one per transactional id, in turn
   *     ({@link #producerFactory})
   * @param metrics where transactions are counted
   * @param mayPublish whether the term's leadership is still sure
   * @param onFenced told once, with the reason, when another producer of the id fenced this one
   */
  ExactlyOnce(
      RelayConfig config,
      List<KafkaPublisher> publishers,
      RelayMetrics metrics,
      BooleanSupplier mayPublish,
      Consumer<String> onFenced) {
    this.mayPublish = mayPublish;
    if (publishers.isEmpty()) {
      throw new IllegalArgumentException("no publisher");
    }
    this.publishers = List.copyOf(publishers);
    this.progress = new ProgressTopic(config);
    this.metrics = metrics;
    this.context = config.logContext();
    this.transactionalId = config.delivery().transactionalId();
    this.onFenced = onFenced;
  }

  /**
   * Creates transactional producers of one id for a term: the relay's producer settings with the
   * {@code transactional.id}; each is initialised ({@code initTransactions()}) before it is
   * returned.
   *
   * @param config the relay configuration, with exactly-once delivery
   * @param transactionalId one of {@link
   *     io.outboxrelay.relay.config.DeliveryConfig#transactionalIds()}
   * @return the factory, for a {@link KafkaPublisher}
   */
  static java.util.function.Supplier<Producer<byte[], byte[]>> producerFactory(
      RelayConfig config, String transactionalId) {
    Map<String, Object> props = config.producer().asProperties(transactionalId);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    return () -> {
      KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props);
      try {
        p.initTransactions();
      } catch (RuntimeException e) {
        p.close(Duration.ZERO);
        throw e;
      }
      return p;
    };
  }

  /** The publisher of the next transaction: the producers take turns after each commit. */
  synchronized KafkaPublisher publisher() {
    return publishers.get(turn);
  }

  /**
   * The record committing a position with a batch.
   *
   * @param position the offset JSON after the batch
   * @return the progress topic's record
   */
  RoutedRecord progressRecord(String position) {
    return progress.record(position);
  }

  /**
   * Starts the term's transactions: creates the progress topic when missing, fences earlier
   * producers of the id ({@code initTransactions()}), then reads the position committed last. While
   * Kafka does not answer it waits and tries again (one WARN); a failure retrying cannot fix (the
   * id or the topic refused) stops the relay.
   *
   * @param stop polled between attempts: true gives up
   * @return the committed position, empty when none was committed; null when given up
   * @throws RelayFailure when Kafka refuses the relay in a way retrying cannot fix
   * @throws InterruptedException when interrupted
   */
  Optional<String> start(BooleanSupplier stop) throws InterruptedException {
    boolean warned = false;
    while (!stop.getAsBoolean()) {
      try {
        progress.ensureExists();
        for (KafkaPublisher p : publishers) {
          p.open(); // fences the earlier holders of its id
        }
        return progress.readCommitted(stop);
      } catch (RelayFailure e) {
        throw e;
      } catch (Exception e) {
        Throwable cause =
            e instanceof KafkaUnavailableException && e.getCause() != null ? e.getCause() : e;
        Disposition d = ErrorClassifier.classify(cause);
        if (d == Disposition.STOP || d == Disposition.DEAD) {
          throw new RelayFailure(
              "Kafka refused the exactly-once start of the relay ("
                  + ErrorClassifier.describe(cause)
                  + "): grant Write and Describe on the transactional ids prefixed '"
                  + transactionalId
                  + "' and Read, Write and Describe on topic '"
                  + progress.topic()
                  + "', or set delivery.guarantee=at-least-once",
              cause);
        }
        publishers.forEach(KafkaPublisher::reset);
        if (!warned) {
          warned = true;
          LOG.warn(
              "[{}] cannot start the Kafka transactions yet ({}); trying again every {} s",
              context,
              ErrorClassifier.describe(cause),
              START_RETRY.toSeconds());
        }
        Thread.sleep(START_RETRY.toMillis());
      }
    }
    return null;
  }

  /**
   * Commits a position alone, in a transaction of its own (a first start's snapshot position, after
   * its rows were published). Tries again while Kafka does not take it.
   *
   * @param position the offset JSON
   * @param giveUp polled between attempts: true gives up
   * @return true once committed; false when given up or fenced
   * @throws InterruptedException when interrupted
   */
  boolean commitPosition(String position, BooleanSupplier giveUp) throws InterruptedException {
    while (!giveUp.getAsBoolean()) {
      KafkaPublisher.Transaction tx =
          publisher().sendInTransaction(List.of(progress.record(position)), giveUp, e -> false);
      counted(tx);
      if (tx.committed()) {
        return true;
      }
      Throwable error = tx.commitError() != null ? tx.commitError() : tx.outcomes().get(0).error();
      if (isFenced(tx) || tx.commitError() != null) {
        fenced(
            tx.commitError() != null
                ? "the commit failed: " + ErrorClassifier.describe(error)
                : "fenced: " + ErrorClassifier.describe(error));
        return false;
      }
      if (ErrorClassifier.classify(error) == Disposition.STOP
          || ErrorClassifier.classify(error) == Disposition.DEAD) {
        throw new RelayFailure(
            "Kafka refused the relay's position record on topic '"
                + progress.topic()
                + "' ("
                + ErrorClassifier.describe(error)
                + "): grant Write on it",
            error);
      }
      Thread.sleep(START_RETRY.toMillis());
    }
    return false;
  }

  /**
   * Commits a position alone, as {@link #commitPosition(String, BooleanSupplier)}, until committed,
   * or until this term's transactions end or its leadership is no longer sure.
   *
   * @param position the offset JSON
   * @return true once committed
   * @throws InterruptedException when interrupted
   */
  boolean commitPosition(String position) throws InterruptedException {
    return commitPosition(position, () -> closed || fenced.get() || !mayPublish.getAsBoolean());
  }

  /**
   * Counts a transaction as committed or aborted; after a commit the other producer takes the next
   * transaction.
   *
   * @param tx what became of it
   */
  void counted(KafkaPublisher.Transaction tx) {
    if (tx.committed()) {
      synchronized (this) {
        turn = (turn + 1) % publishers.size();
      }
      metrics.transactionCommitted(tx.commitNanos());
    } else {
      metrics.transactionAborted();
    }
  }

  /**
   * Whether another producer of the id fenced the transaction's.
   *
   * @param tx what became of it
   * @return true when fenced
   */
  static boolean isFenced(KafkaPublisher.Transaction tx) {
    if (tx.commitError() != null && ErrorClassifier.isFencing(tx.commitError())) {
      return true;
    }
    for (KafkaPublisher.Outcome o : tx.outcomes()) {
      if (o.error() != null && ErrorClassifier.isFencing(o.error())) {
        return true;
      }
    }
    return false;
  }

  /**
   * This term can publish nothing more: another producer of the id fenced its producer, or a
   * commit's outcome is unknown. Ends the term once (a new one resumes at the committed position).
   *
   * @param why for the log
   */
  void fenced(String why) {
    if (fenced.compareAndSet(false, true)) {
      LOG.warn(
          "[{}] the Kafka transactions of this term end ({}): publishing nothing more; the next"
              + " term resumes at the position committed in Kafka",
          context,
          why);
      onFenced.accept(why);
    }
  }

  /** Whether {@link #fenced} was called: nothing more may be sent in this term. */
  boolean isEnded() {
    return fenced.get();
  }

  /** Closes the producers at once; an open transaction is aborted by the next holder. */
  @Override
  public void close() {
    closed = true;
    publishers.forEach(p -> p.close(Duration.ZERO));
  }
}
