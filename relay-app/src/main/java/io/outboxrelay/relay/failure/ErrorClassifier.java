package io.outboxrelay.relay.failure;

import com.github.shyiko.mysql.binlog.network.ServerException;
import io.outboxrelay.router.RoutingException;
import java.sql.SQLException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The only code that inspects third-party exceptions to decide between {@link Disposition#RETRY},
 * {@link Disposition#UNAVAILABLE}, {@link Disposition#DEAD} and {@link Disposition#STOP}.
 *
 * <p>It walks the cause chain from the outermost exception inwards; the first exception with a
 * definite meaning decides. Wrappers without one (ExecutionException, a plain KafkaException,
 * DebeziumException) are looked through. When nothing in the chain is known, the answer is {@link
 * Disposition#RETRY}: an unknown failure is never treated as permanent, so nothing is dropped on a
 * guess. Database errors are told by their type, SQLState and vendor code ({@link SqlErrors}),
 * binlog errors by the binlog client's error code. Only where a library offers neither (Debezium's
 * own checks throw a plain {@code DebeziumException}; MySQL reports a second reader with the same
 * server id with the same code as a purged binlog) is a message read, and only here. Stateless and
 * thread-safe.
 */
public final class ErrorClassifier {

  /** Debezium's check of a stored position whose binlog is gone; it carries no error code. */
  static final String POSITION_PURGED = "is no longer available on the server";

  /**
   * The words the servers use when another binlog reader connects with this one's server id:
   * MariaDB's "A slave with the same server_uuid/server_id is already connected" (error 4052, told
   * by its code), MySQL's "A replica with the same server_uuid/server_id as this replica has
   * connected to the source" and, before 8.0.26, "A slave ... as this slave has connected to the
   * master" (error 1236, the code of a purged binlog too, so told by these words).
   */
  static final String SERVER_ID_TAKEN = "same server_uuid/server_id";

  /** Debezium's check of a schema history that does not describe the captured table. */
  static final String SCHEMA_UNKNOWN = "schema isn't known to this connector";

  private ErrorClassifier() {}

  /**
   * Classifies a failure.
   *
   * @param error the failure; may be wrapped any number of times
   * @return what to do about it
   */
  public static Disposition classify(Throwable error) {
    Throwable decisive = Causes.first(error, t -> classifyOne(t) != null);
    return decisive == null ? Disposition.RETRY : classifyOne(decisive);
  }

  private static Disposition classifyOne(Throwable t) {
    // Poison: this event can never be published as it is.
    if (t instanceof RoutingException
        || t instanceof RecordTooLargeException
        || t instanceof RecordBatchTooLargeException
        || t instanceof InvalidTopicException
        || t instanceof InvalidRecordException
        || t instanceof SerializationException) {
      return Disposition.DEAD;
    }
    // The relay as a whole cannot work until an operator acts.
    // InvalidTimestampException: the broker refuses the producer's clock (more than
    // log.message.timestamp.after.max.ms ahead); every event would fail the same way.
    if (t instanceof ClusterAuthorizationException
        || t instanceof AuthenticationException
        || t instanceof UnsupportedVersionException
        || t instanceof InvalidTimestampException) {
      return Disposition.STOP;
    }
    // The transactional id: no event of the relay can be published.
    if (t instanceof org.apache.kafka.common.errors.TransactionalIdAuthorizationException) {
      return Disposition.STOP;
    }
    // Not authorised for this event's topic. Checked before InvalidConfigurationException, which
    // AuthorizationException extends in Kafka 4.
    if (t instanceof AuthorizationException) {
      return Disposition.DEAD;
    }
    if (t instanceof InvalidConfigurationException) {
      return Disposition.STOP;
    }
    // Kafka, or the leader of the event's partition, cannot take writes now: not the event's fault.
    // A TimeoutException stays RETRY: "not present in metadata" may mean a missing topic as well as
    // a broker that is down, so the caller asks whether Kafka answers at all (KafkaBreaker).
    if (t instanceof KafkaUnavailableException
        || t instanceof NetworkException
        || t instanceof DisconnectException
        || t instanceof BrokerNotAvailableException
        || t instanceof LeaderNotAvailableException
        || t instanceof NotLeaderOrFollowerException
        || t instanceof NotEnoughReplicasException
        || t instanceof NotEnoughReplicasAfterAppendException) {
      return Disposition.UNAVAILABLE;
    }
    if (t instanceof RetriableException) {
      return Disposition.RETRY;
    }
    if (t instanceof ServerException se) {
      return se.getErrorCode() == SqlErrors.ER_MASTER_FATAL_ERROR_READING_BINLOG
          ? Disposition.STOP
          : null;
    }
    if (t instanceof SQLException sql) {
      return SqlErrors.classify(sql);
    }
    if (saysPositionPurged(t)) {
      return Disposition.STOP; // Debezium: the stored binlog position was purged
    }
    return null;
  }

  /**
   * Whether a failure says that another producer with the same {@code transactional.id} called
   * {@code initTransactions()} since this one did ({@code ProducerFencedException}, {@code
   * InvalidProducerEpochException}): with exactly-once, another relay leads, or the transaction
   * coordinator aborted this producer's transaction after its timeout.
   *
   * @param error the failure; may be wrapped any number of times
   * @return true when this producer is fenced
   */
  public static boolean isFencing(Throwable error) {
    return Causes.first(
            error,
            t ->
                t instanceof org.apache.kafka.common.errors.ProducerFencedException
                    || t instanceof org.apache.kafka.common.errors.InvalidProducerEpochException)
        != null;
  }

  private static boolean saysPositionPurged(Throwable t) {
    return t.getMessage() != null && t.getMessage().contains(POSITION_PURGED);
  }

  /**
   * Whether a failure says that the binlog position the reader asked for cannot be read from the
   * server: error 1236 from the binlog client or a driver (a purged binlog file or GTID, a binlog
   * that was reset), or Debezium's own check of a stored position, which carries no error code.
   *
   * @param error the failure; may be wrapped any number of times
   * @return true when the stored position is unusable
   */
  public static boolean isBinlogPositionUnavailable(Throwable error) {
    return !isServerIdTaken(error)
        && Causes.first(
                error,
                t ->
                    errorCode(t) == SqlErrors.ER_MASTER_FATAL_ERROR_READING_BINLOG
                        || saysPositionPurged(t))
            != null;
  }

  /** The vendor error code of the binlog client's or a driver's exception, else 0. */
  private static int errorCode(Throwable t) {
    if (t instanceof ServerException se) {
      return se.getErrorCode();
    }
    return t instanceof SQLException sql ? sql.getErrorCode() : 0;
  }

  /**
   * Whether the server dropped the binlog connection because another reader connected with the same
   * server id (after a takeover, the deposed leader's client reconnecting once more).
   *
   * @param error the failure; may be wrapped any number of times
   * @return true when another reader took the server id
   */
  public static boolean isServerIdTaken(Throwable error) {
    return Causes.first(
            error,
            t ->
                errorCode(t) == SqlErrors.ER_SAME_SERVER_ID_CONNECTED
                    || (t.getMessage() != null && t.getMessage().contains(SERVER_ID_TAKEN)))
        != null;
  }

  /**
   * Whether Debezium found that its schema history does not describe the captured table (the stored
   * position belongs to another table, or the history is incomplete). Debezium says so only in
   * words: its engine reports the failure as a message, or as an exception {@link #describe
   * described} by this class.
   *
   * @param detail the engine's message, or {@link #describe} of its failure; may be null
   * @return true for an unknown schema
   */
  public static boolean isSchemaUnknown(String detail) {
    return detail != null && detail.contains(SCHEMA_UNKNOWN);
  }

  /**
   * Whether the database rolled the transaction back and the connection is still good (see {@link
   * SqlErrors#isTransactionRollback}).
   *
   * @param error the failure
   * @return true for a transaction rollback
   */
  public static boolean isTransactionRollback(SQLException error) {
    return SqlErrors.isTransactionRollback(error);
  }

  /**
   * A short description of a failure for logs and for the {@code last_error} column: the class and
   * message of the innermost cause that says most. Never contains payloads (Kafka and JDBC do not
   * put record values in exception messages).
   *
   * @param error the failure
   * @return one line, at most 1000 characters
   */
  public static String describe(Throwable error) {
    Throwable decisive = Causes.first(error, t -> classifyOne(t) != null);
    Throwable most = decisive != null ? decisive : innermost(error);
    String text = most.getClass().getSimpleName() + ": " + most.getMessage();
    text = text.replace('\n', ' ').replace('\r', ' ');
    return text.length() > 1000 ? text.substring(0, 1000) : text;
  }

  /** The last throwable of the chain before it ends or comes round again. */
  private static Throwable innermost(Throwable error) {
    Throwable[] last = {error};
    Causes.first(
        error,
        t -> {
          last[0] = t;
          return false;
        });
    return last[0];
  }
}
