package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.SchemaMigrationRequiredException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * The one place that decides what a failure means for the record. Walks the cause chain (with a
 * local cursor, bounded against cycles); the first decisive link wins, anything else is {@link
 * Disposition#RETRY}: handler exceptions, deadlock victims, lock wait timeouts, serialization
 * failures and {@link io.outboxrelay.idempotency.VersionGapException} are all worth another try.
 * Stateless.
 */
final class ErrorClassifier {

  private static final int MAX_DEPTH = 32;

  private ErrorClassifier() {}

  static Disposition classify(Throwable error) {
    Throwable cursor = error;
    for (int depth = 0; cursor != null && depth < MAX_DEPTH; depth++) {
      if (cursor instanceof PoisonRecordException) {
        return Disposition.POISON;
      }
      if (cursor instanceof SchemaMigrationRequiredException) {
        return Disposition.SCHEMA_MIGRATION_REQUIRED;
      }
      if (isConnectionFailure(cursor)) {
        return Disposition.DATABASE_UNAVAILABLE;
      }
      Throwable next = cursor.getCause();
      cursor = next == cursor ? null : next;
    }
    return Disposition.RETRY;
  }

  private static boolean isConnectionFailure(Throwable error) {
    if (error instanceof SQLTransientConnectionException
        || error instanceof SQLNonTransientConnectionException
        || error instanceof SQLRecoverableException) {
      return true;
    }
    // SQLSTATE class 08: connection exception (drivers that do not use the subclasses above).
    return error instanceof SQLException sql
        && sql.getSQLState() != null
        && sql.getSQLState().startsWith("08");
  }
}
