package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.idempotency.AggregateVersion;
import io.outboxrelay.idempotency.EventProcessingException;
import io.outboxrelay.idempotency.SchemaMigrationRequiredException;
import io.outboxrelay.idempotency.VersionGapException;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Both directions: what must stop or skip retries, and what must be retried. */
class ErrorClassifierTest {

  static Stream<Arguments> failures() {
    return Stream.of(
        // poison: no retries
        Arguments.of(new PoisonRecordException("no id header"), Disposition.POISON),
        Arguments.of(
            new EventProcessingException(
                "e1", "wrapped", new PoisonRecordException("handler says so")),
            Disposition.POISON),
        // the consumer's tables need a migration: stop at once, never the record's fault
        Arguments.of(
            new SchemaMigrationRequiredException(
                "no payload_hash column", new SQLException("Unknown column", "42S22", 1054)),
            Disposition.SCHEMA_MIGRATION_REQUIRED),
        // a handler's own IllegalStateException stays worth a retry
        Arguments.of(new IllegalStateException("order o-1 is locked"), Disposition.RETRY),
        // the database cannot be reached: never the record's fault
        Arguments.of(
            wrapped(new SQLNonTransientConnectionException("refused")),
            Disposition.DATABASE_UNAVAILABLE),
        Arguments.of(
            wrapped(new SQLTransientConnectionException("pool timeout")),
            Disposition.DATABASE_UNAVAILABLE),
        Arguments.of(
            wrapped(new SQLRecoverableException("connection reset")),
            Disposition.DATABASE_UNAVAILABLE),
        Arguments.of(
            wrapped(new SQLException("Connection refused", "08001")),
            Disposition.DATABASE_UNAVAILABLE),
        Arguments.of(
            new IllegalStateException("outer", wrapped(new SQLException("I/O error", "08006"))),
            Disposition.DATABASE_UNAVAILABLE),
        // everything else is worth another try
        Arguments.of(
            wrapped(new SQLTransactionRollbackException("Deadlock found", "40001", 1213)),
            Disposition.RETRY),
        Arguments.of(
            wrapped(new SQLException("Lock wait timeout exceeded", "HY000", 1205)),
            Disposition.RETRY),
        Arguments.of(wrapped(new SQLException("deadlock detected", "40P01")), Disposition.RETRY),
        Arguments.of(
            wrapped(new SQLException("duplicate key in business table", "23000", 1062)),
            Disposition.RETRY),
        Arguments.of(wrapped(new SQLException("no state")), Disposition.RETRY),
        Arguments.of(new IllegalArgumentException("bad payload"), Disposition.RETRY),
        Arguments.of(wrapped(new IOException("remote service down")), Disposition.RETRY),
        Arguments.of(
            new VersionGapException("e3", new AggregateVersion("order", "o-1", 3), 1),
            Disposition.RETRY),
        Arguments.of(new SelfCaused(), Disposition.RETRY));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void classifiesByTheWholeCauseChain(Throwable failure, Disposition expected) {
    assertThat(ErrorClassifier.classify(failure)).isEqualTo(expected);
  }

  private static EventProcessingException wrapped(Exception cause) {
    return new EventProcessingException("e1", "processing event e1 failed", cause);
  }

  /** A cause chain that loops back onto itself must not hang the classifier. */
  private static final class SelfCaused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final RuntimeException other = new RuntimeException("other", this);

    @Override
    public synchronized Throwable getCause() {
      return other;
    }
  }
}
