package io.outboxrelay.relay.publish;

import com.github.shyiko.mysql.binlog.network.ServerException;
import io.outboxrelay.router.RoutingException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
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
 * guess. Stateless and thread-safe.
 */
public final class ErrorClassifier {

  /** MariaDB/MySQL: lock wait timeout exceeded. */
  static final int ER_LOCK_WAIT_TIMEOUT = 1205;

  /** MariaDB/MySQL: deadlock found when trying to get lock. */
  static final int ER_LOCK_DEADLOCK = 1213;

  /** MariaDB/MySQL: the binlog position the reader asked for is gone (purged). */
  static final int ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236;

  /** MariaDB/MySQL: access denied for user. */
  static final int ER_ACCESS_DENIED = 1045;

  /** MariaDB/MySQL: command denied to user on table. */
  static final int ER_TABLEACCESS_DENIED = 1142;

  /** MariaDB/MySQL: access denied; you need (at least one of) the X privilege(s). */
  static final int ER_SPECIFIC_ACCESS_DENIED = 1227;

  private static final Set<Integer> STOP_SQL_CODES =
      Set.of(
          ER_MASTER_FATAL_ERROR_READING_BINLOG,
          ER_ACCESS_DENIED,
          ER_TABLEACCESS_DENIED,
          ER_SPECIFIC_ACCESS_DENIED);

  private ErrorClassifier() {}

  /**
   * Classifies a failure.
   *
   * @param error the failure; may be wrapped any number of times
   * @return what to do about it
   */
  public static Disposition classify(Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable cursor = error; cursor != null && seen.add(cursor); cursor = cursor.getCause()) {
      Disposition d = classifyOne(cursor);
      if (d != null) {
        return d;
      }
    }
    return Disposition.RETRY;
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
      return se.getErrorCode() == ER_MASTER_FATAL_ERROR_READING_BINLOG ? Disposition.STOP : null;
    }
    if (t instanceof SQLException sql) {
      return classifySql(sql);
    }
    String message = t.getMessage();
    if (message != null && message.contains("is no longer available on the server")) {
      return Disposition.STOP; // Debezium: the stored binlog position was purged
    }
    return null;
  }

  private static Disposition classifySql(SQLException sql) {
    if (sql instanceof SQLTransientException || sql instanceof SQLRecoverableException) {
      return Disposition.RETRY;
    }
    int code = sql.getErrorCode();
    if (code == ER_LOCK_WAIT_TIMEOUT || code == ER_LOCK_DEADLOCK) {
      return Disposition.RETRY;
    }
    if (STOP_SQL_CODES.contains(code)) {
      return Disposition.STOP;
    }
    String state = sql.getSQLState();
    if (state != null) {
      if (state.startsWith("08")
          || state.startsWith("40")
          || state.equals("57P01")
          || state.equals("53300")
          || state.equals("55P03")) {
        return Disposition.RETRY; // connection, rollback (deadlock/serialization), shutdown
      }
      if (state.equals("28000") || state.equals("28P01") || state.equals("42501")) {
        return Disposition.STOP; // authentication or privileges
      }
    }
    return null;
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
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof ServerException se
          && se.getErrorCode() == ER_MASTER_FATAL_ERROR_READING_BINLOG) {
        return true;
      }
      if (t instanceof SQLException sql
          && sql.getErrorCode() == ER_MASTER_FATAL_ERROR_READING_BINLOG) {
        return true;
      }
      String message = t.getMessage();
      if (message != null && message.contains("is no longer available on the server")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the database rolled the transaction back (a deadlock or a serialization failure:
   * SQLState class 40) and the connection is still good, so the transaction may simply run again.
   *
   * @param error the failure
   * @return true for a transaction rollback
   */
  public static boolean isTransactionRollback(SQLException error) {
    return error instanceof SQLTransactionRollbackException
        || (error.getSQLState() != null && error.getSQLState().startsWith("40"));
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
    Throwable most = error;
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable cursor = error; cursor != null && seen.add(cursor); cursor = cursor.getCause()) {
      if (classifyOne(cursor) != null) {
        most = cursor;
        break;
      }
      most = cursor;
    }
    String text = most.getClass().getSimpleName() + ": " + most.getMessage();
    text = text.replace('\n', ' ').replace('\r', ' ');
    return text.length() > 1000 ? text.substring(0, 1000) : text;
  }
}
