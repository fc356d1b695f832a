package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.shyiko.mysql.binlog.network.ServerException;
import io.outboxrelay.router.RoutingException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven in both directions: each row must classify as stated, so a change that turns
 * retriable errors into poison (or the reverse) fails here.
 */
class ErrorClassifierTest {

  static Stream<Arguments> table() {
    return Stream.of(
        // transient: retry, counting an attempt unless Kafka as a whole does not answer
        row(new TimeoutException("Expiring 3 record(s)"), Disposition.RETRY),
        row(
            new TimeoutException("Topic t not present in metadata after 10000 ms."),
            Disposition.RETRY),
        row(new UnknownTopicOrPartitionException("no such topic"), Disposition.RETRY),
        // Kafka cannot take writes: the relay's problem, never counted against the event
        row(new NetworkException("disconnected"), Disposition.UNAVAILABLE),
        row(new DisconnectException("disconnected"), Disposition.UNAVAILABLE),
        row(new NotEnoughReplicasException("isr"), Disposition.UNAVAILABLE),
        row(new NotEnoughReplicasAfterAppendException("isr"), Disposition.UNAVAILABLE),
        row(new NotLeaderOrFollowerException("moved"), Disposition.UNAVAILABLE),
        row(new LeaderNotAvailableException("election"), Disposition.UNAVAILABLE),
        row(new BrokerNotAvailableException("down"), Disposition.UNAVAILABLE),
        row(
            new KafkaUnavailableException(
                "cannot create the Kafka producer",
                new KafkaException(
                    "Failed to construct kafka producer",
                    new org.apache.kafka.common.config.ConfigException("No resolvable bootstrap"))),
            Disposition.UNAVAILABLE),
        row(new OutOfOrderSequenceException("seq"), Disposition.RETRY),
        row(new UnknownServerException("?"), Disposition.RETRY),
        row(new KafkaException("unknown"), Disposition.RETRY),
        row(new IllegalStateException("never seen before"), Disposition.RETRY),
        row(new SQLTransientConnectionException("gone"), Disposition.RETRY),
        row(new SQLTransactionRollbackException("deadlock", "40001"), Disposition.RETRY),
        row(new SQLException("Lock wait timeout exceeded", "HY000", 1205), Disposition.RETRY),
        row(new SQLException("Deadlock found", "40001", 1213), Disposition.RETRY),
        row(new SQLException("Communications link failure", "08S01", 0), Disposition.RETRY),
        row(new SQLException("terminating connection", "57P01", 0), Disposition.RETRY),
        row(new SQLRecoverableException("connection reset"), Disposition.RETRY),
        row(new SQLException("deadlock detected", "40P01", 0), Disposition.RETRY),
        row(new SQLException("too many connections", "53300", 0), Disposition.RETRY),
        row(new SQLException("could not obtain lock", "55P03", 0), Disposition.RETRY),
        row(new SQLException("Connection refused", "08001", 0), Disposition.RETRY),
        // poison: this event can never be published
        row(new RecordTooLargeException("too big"), Disposition.DEAD),
        row(new InvalidTopicException("bad topic"), Disposition.DEAD),
        row(new SerializationException("bad"), Disposition.DEAD),
        row(new TopicAuthorizationException("no write"), Disposition.DEAD),
        row(new RoutingException("illegal topic"), Disposition.DEAD),
        row(new RecordBatchTooLargeException("batch too big"), Disposition.DEAD),
        row(new InvalidRecordException("compacted topic needs a key"), Disposition.DEAD),
        row(new GroupAuthorizationException("not this group"), Disposition.DEAD),
        // the relay must stop
        row(new ClusterAuthorizationException("idempotent write"), Disposition.STOP),
        row(new SaslAuthenticationException("bad password"), Disposition.STOP),
        row(
            new org.apache.kafka.common.errors.InvalidTimestampException("clock 3 days ahead"),
            Disposition.STOP),
        row(new SQLException("Access denied", "28000", 1045), Disposition.STOP),
        row(new SQLException("command denied", "42000", 1142), Disposition.STOP),
        row(new SQLException("need the BINLOG MONITOR privilege", "42000", 1227), Disposition.STOP),
        row(
            new SQLException("Could not find first log file name", "HY000", 1236),
            Disposition.STOP),
        row(new SQLException("password authentication failed", "28P01", 0), Disposition.STOP),
        row(new SQLException("permission denied for table", "42501", 0), Disposition.STOP),
        row(new UnsupportedVersionException("broker too old"), Disposition.STOP),
        row(new InvalidConfigurationException("bad producer config"), Disposition.STOP),
        row(
            new ServerException("Could not find first log file name", 1236, "HY000"),
            Disposition.STOP),
        row(
            new RuntimeException(
                "The connector is trying to read binlog starting at ..., but this is no longer"
                    + " available on the server."),
            Disposition.STOP));
  }

  private static Arguments row(Throwable error, Disposition expected) {
    return Arguments.of(error, expected);
  }

  /** The other direction: every disposition is reached by some known error of the table. */
  @org.junit.jupiter.api.Test
  void everyDispositionHasItsErrors() {
    Tables.assertEveryValueIsReached(table(), Disposition.class);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("table")
  void classifiesTheErrorItself(Throwable error, Disposition expected) {
    assertThat(ErrorClassifier.classify(error)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "wrapped {0} -> {1}")
  @MethodSource("table")
  void looksThroughWrappers(Throwable error, Disposition expected) {
    Throwable wrapped =
        new ExecutionException(new KafkaException("send failed", new RuntimeException(error)));

    assertThat(ErrorClassifier.classify(wrapped)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} is described on one line")
  @MethodSource("table")
  void describesOnOneLine(Throwable error, Disposition ignored) {
    String text = ErrorClassifier.describe(new ExecutionException(error));

    assertThat(text).doesNotContain("\n").hasSizeLessThanOrEqualTo(1000);
    assertThat(text).contains(error.getClass().getSimpleName());
  }

  @ParameterizedTest(name = "a cause cycle terminates")
  @MethodSource("table")
  void survivesCauseCycles(Throwable error, Disposition expected) {
    Exception a = new Exception("a");
    Exception b = new Exception("b", a);
    a.initCause(b);

    assertThat(ErrorClassifier.classify(a)).isEqualTo(Disposition.RETRY);
    assertThat(ErrorClassifier.classify(error)).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void tellsATransactionRollbackFromALostConnection() {
    assertThat(
            ErrorClassifier.isTransactionRollback(
                new SQLException("Deadlock found", "40001", 1213)))
        .isTrue();
    assertThat(
            ErrorClassifier.isTransactionRollback(
                new SQLTransactionRollbackException("serialization failure")))
        .isTrue();
    assertThat(
            ErrorClassifier.isTransactionRollback(
                new SQLException("Communications link failure", "08S01", 0)))
        .isFalse();
    assertThat(
            ErrorClassifier.isTransactionRollback(
                new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
        .isFalse();
  }

  @org.junit.jupiter.api.Test
  void recognisesAnUnreadableBinlogPositionByItsErrorCodeThroughWrappers() {
    ServerException gtidPurged =
        new ServerException(
            "Could not find GTID state requested by slave in any binlog files. Probably the slave"
                + " state is too old and required binlog files have been purged.",
            1236,
            "HY000");
    Throwable wrapped =
        new org.apache.kafka.connect.errors.ConnectException(
            "An exception occurred in the change event producer. This connector will be stopped.",
            new io.debezium.DebeziumException("Could not find GTID state ...", gtidPurged));

    assertThat(ErrorClassifier.isBinlogPositionUnavailable(wrapped)).isTrue();
    assertThat(
            ErrorClassifier.isBinlogPositionUnavailable(
                new SQLException("Could not find first log file name", "HY000", 1236)))
        .isTrue();
    assertThat(
            ErrorClassifier.isBinlogPositionUnavailable(
                new RuntimeException("... but this is no longer available on the server.")))
        .isTrue();
    assertThat(
            ErrorClassifier.isBinlogPositionUnavailable(
                new ServerException("Access denied", 1045, "28000")))
        .isFalse();
    assertThat(ErrorClassifier.isBinlogPositionUnavailable(new KafkaException("purged"))).isFalse();
  }

  /** What MariaDB 10.11 sends the first reader when a second connects with its server id. */
  static final ServerException MARIADB_SERVER_ID_TAKEN =
      new ServerException(
          "A slave with the same server_uuid/server_id is already connected; the first event"
              + " 'mariadb-bin.000001' at 330, the last event read from 'mariadb-bin.000001' at"
              + " 256, the last byte read from 'mariadb-bin.000001' at 330.",
          4052,
          "HY000");

  /** What MySQL 8.0.26 and later send (sql/rpl_binlog_sender.cc). */
  static final ServerException MYSQL_SERVER_ID_TAKEN =
      new ServerException(
          "A replica with the same server_uuid/server_id as this replica has connected to the"
              + " source; the first event 'binlog.000017' at 4, the last event read from"
              + " './binlog.000017' at 96475, the last byte read from './binlog.000017' at 96475.",
          1236,
          "HY000");

  /** What MySQL before 8.0.26 sends. */
  static final ServerException OLD_MYSQL_SERVER_ID_TAKEN =
      new ServerException(
          "A slave with the same server_uuid/server_id as this slave has connected to the master;"
              + " the first event 'binlog.000002' at 119263798, the last event read from"
              + " './binlog.000002' at 126, the last byte read from './binlog.000002' at"
              + " 119263798.",
          1236,
          "HY000");

  /** What MariaDB 10.11 sends a reader asking for a binlog file it no longer has. */
  static final ServerException MARIADB_FILE_GONE =
      new ServerException(
          "Could not find first log file name in binary log index file", 1236, "HY000");

  @org.junit.jupiter.api.Test
  void recognisesAnotherReaderWithTheSameServerIdAsTheServersSayIt() {
    for (ServerException taken :
        List.of(MARIADB_SERVER_ID_TAKEN, MYSQL_SERVER_ID_TAKEN, OLD_MYSQL_SERVER_ID_TAKEN)) {
      assertThat(ErrorClassifier.isServerIdTaken(new RuntimeException("binlog client", taken)))
          .as(taken.getMessage())
          .isTrue();
      assertThat(ErrorClassifier.isBinlogPositionUnavailable(taken))
          .as("not a purged binlog, though MySQL's code is 1236: " + taken.getMessage())
          .isFalse();
    }
    // MariaDB's code alone tells it, whatever the words.
    assertThat(ErrorClassifier.isServerIdTaken(new ServerException("?", 4052, "HY000"))).isTrue();
    assertThat(ErrorClassifier.isServerIdTaken(MARIADB_FILE_GONE)).isFalse();
    assertThat(ErrorClassifier.isBinlogPositionUnavailable(MARIADB_FILE_GONE)).isTrue();
  }

  @org.junit.jupiter.api.Test
  void recognisesASchemaHistoryThatDoesNotDescribeTheTable() {
    assertThat(
            ErrorClassifier.isSchemaUnknown(
                "DebeziumException: Encountered change event for table shop.outbox_events whose"
                    + " schema isn't known to this connector"))
        .isTrue();
    assertThat(ErrorClassifier.isSchemaUnknown("DebeziumException: something else")).isFalse();
    assertThat(ErrorClassifier.isSchemaUnknown(null)).isFalse();
  }
}
