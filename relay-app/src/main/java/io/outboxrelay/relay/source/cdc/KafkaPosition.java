package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.failure.ErrorClassifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The position an exactly-once relay committed in Kafka ({@code delivery.progress.topic}), for the
 * operator commands: read it as a {@code read_committed} consumer sees it, without taking part in
 * the relay's transactions ({@link #read}); read it after fencing the relay's transactional id, for
 * a command that runs while no relay does ({@link #readFenced}); or commit another one in its place
 * ({@link #commit}). Which of Kafka's and the database's positions a relay resumes at is {@link
 * #resumesAtKafka}'s answer, the rule a relay's start follows. Each call makes its own clients and
 * closes them; thread-safe.
 */
public final class KafkaPosition {

  private final RelayConfig config;
  private final Duration timeout;
  private final ProgressTopic progress;

  /**
   * What a read found.
   *
   * @param position the last position the relay committed, empty when it committed none; null when
   *     unknown
   * @param unknown why the position is unknown, one line; null when it is known
   */
  public record Reading(Optional<String> position, String unknown) {

    /** Whether Kafka answered. */
    public boolean known() {
      return unknown == null;
    }
  }

  /** Kafka did not answer, or refused, in time: nothing was committed. */
  public static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    Failure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The relay's position in Kafka, each operation bounded by {@code timeout}.
   *
   * @param config the relay's configuration, with {@code delivery.guarantee=exactly-once}
   * @param timeout how long one operation may take in all
   */
  public KafkaPosition(RelayConfig config, Duration timeout) {
    this.config = config;
    this.timeout = timeout;
    this.progress = new ProgressTopic(config, timeout);
  }

  /** The progress topic's name. */
  public String topic() {
    return progress.topic();
  }

  /**
   * Reads the last position the relay committed, as a {@code read_committed} consumer sees it,
   * without {@code initTransactions()} (which would fence a running relay). The read waits for the
   * transactions open on the topic when it starts to be decided: a running relay's in a moment, a
   * killed one's only when the next leader starts or {@code transaction.timeout.ms} ends it. Past
   * the timeout the position is unknown.
   *
   * @return what was found, or why nothing is known; never throws for Kafka's failures
   */
  public Reading read() {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      Optional<String> p = progress.readCommitted(() -> System.nanoTime() > deadline);
      if (p == null) {
        return new Reading(
            null,
            "a transaction on "
                + topic()
                + " was still open after "
                + timeout.toSeconds()
                + " s: the relay's commit is under way, or a stopped relay's transaction waits for"
                + " the next leader or transaction.timeout.ms");
      }
      return new Reading(p, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Reading(null, "interrupted");
    } catch (Exception e) {
      return new Reading(null, why(e));
    }
  }

  /**
   * Fences each of the relay's transactional ids ({@code initTransactions()}, which completes or
   * aborts the transaction a stopped relay left open), then reads the last position committed. For
   * a command that runs only while no relay of the table does: a running leader would lose its
   * term.
   *
   * @return the last position committed, empty when none
   * @throws Failure when Kafka does not answer in time or refuses
   */
  public Optional<String> readFenced() throws Failure {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (String id : config.delivery().transactionalIds()) {
        KafkaProducer<byte[], byte[]> producer = producer(id);
        try {
          producer.initTransactions();
        } finally {
          producer.close(Duration.ZERO);
        }
      }
      Optional<String> p = progress.readCommitted(() -> System.nanoTime() > deadline);
      if (p == null) {
        throw new Failure(
            "a transaction of another relay on "
                + topic()
                + " was still open after "
                + timeout.toSeconds()
                + " s: try again once it ends (at most the producer's transaction.timeout.ms)",
            null);
      }
      return p;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure("interrupted", e);
    } catch (Failure e) {
      throw e;
    } catch (Exception e) {
      throw new Failure(why(e), e);
    }
  }

  /**
   * Commits {@code position} as the relay's, in a transaction of the relay's first transactional
   * id: creates the topic when missing, fences each of the relay's ids ({@code initTransactions()},
   * {@link io.outboxrelay.relay.config.DeliveryConfig#transactionalIds()}: a running leader would
   * lose its term, so call it only while no relay of the table runs), sends the position and
   * commits. Returns once committed.
   *
   * @param position the offset JSON, as the offsets table holds it
   * @throws Failure when Kafka does not answer in time or refuses; the position may then have been
   *     sent but is not committed
   */
  public void commit(String position) throws Failure {
    try {
      progress.ensureExists();
    } catch (RelayFailure e) {
      throw new Failure(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure("interrupted", e);
    } catch (Exception e) {
      throw new Failure(why(e), e);
    }
    // Every producer id of the relay is initialised, which fences a producer of it still alive and
    // aborts what it left open; the position then goes in a transaction of the first.
    List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
    try {
      for (String id : config.delivery().transactionalIds()) {
        KafkaProducer<byte[], byte[]> p = producer(id);
        producers.add(p);
        p.initTransactions();
      }
      KafkaProducer<byte[], byte[]> producer = producers.get(0);
      producer.beginTransaction();
      producer
          .send(
              new ProducerRecord<>(
                  progress.topic(),
                  0,
                  progress.key(),
                  position.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      producer.commitTransaction();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure("interrupted", e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      throw new Failure(why(e), e);
    } finally {
      for (KafkaProducer<byte[], byte[]> p : producers) {
        p.close(Duration.ZERO); // an uncommitted transaction is aborted by the next holder
      }
    }
  }

  /**
   * Whether a relay starting now resumes at Kafka's position rather than the database's: the rule
   * of every exactly-once start. Kafka's wins unless the database's is a pending hand-off, the
   * same, or later in the same binlog or WAL, or (PostgreSQL) a first start's marker that Kafka's
   * position does not answer ({@link CommittedPosition}).
   *
   * @param kafka the position committed in Kafka
   * @param database the database's {@code offset_val} (a hand-off's marker included), or null when
   *     the database holds none
   * @return true when the relay resumes at Kafka's
   */
  public static boolean resumesAtKafka(String kafka, String database) {
    return CommittedPosition.toStore(kafka, database).isPresent();
  }

  private KafkaProducer<byte[], byte[]> producer(String transactionalId) {
    Map<String, Object> props = config.producer().asProperties(transactionalId + "-admin");
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(timeout.toMillis()));
    return new KafkaProducer<>(props);
  }

  /** One line: what went wrong, and where. */
  private String why(Throwable e) {
    Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    if (t instanceof TimeoutException
        || t instanceof org.apache.kafka.common.errors.TimeoutException) {
      return "Kafka at "
          + config.producer().bootstrapServers()
          + " did not answer within "
          + timeout.toSeconds()
          + " s";
    }
    return ErrorClassifier.describe(t) + " (Kafka at " + config.producer().bootstrapServers() + ")";
  }
}
