package io.outboxrelay.idempotency;

import java.sql.Connection;

/**
 * The business effect of one event, applied on the processor's connection inside the processor's
 * transaction.
 */
@FunctionalInterface
public interface EventHandler {

  /**
   * Applies the event's business change with {@code connection}.
   *
   * <p>The connection has auto-commit off and belongs to a transaction that already holds the
   * event's id. The handler must not commit, roll back, change auto-commit or close it: the
   * processor commits the business change and the id together, or rolls both back. {@code
   * commit()}, {@code rollback()}, {@code setAutoCommit}, {@code setTransactionIsolation}, {@code
   * close()} and {@code abort} on {@code connection} throw {@link IllegalStateException};
   * savepoints are allowed. Do not run {@code COMMIT} as SQL, unwrap the connection to get around
   * this, or keep it after returning. Called on the caller's thread.
   *
   * @param connection the transaction's connection; not {@code null}
   * @throws Exception any failure: the processor rolls back the change and the event id
   */
  void handle(Connection connection) throws Exception;
}
