package io.outboxrelay.relay.source;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Bounds how long one of the relay's sessions may sit idle inside a transaction. A process frozen
 * between a statement and its commit (SIGSTOP, a long pause, a paused VM) keeps the rows it wrote
 * or locked locked until it wakes: a polling worker's claimed rows, or the rows its claim had just
 * locked with {@code SELECT ... FOR UPDATE SKIP LOCKED} and not yet leased, which other claims then
 * pass over; or a CDC leader's lease row, which a standby's takeover then waits for. The server
 * therefore ends such a session after half a lease and rolls its transaction back; the relay's own
 * transactions take milliseconds.
 *
 * <ul>
 *   <li>{@link #apply}, for the polling connections the relay opens itself: MariaDB {@code
 *       idle_transaction_timeout}, which also ends a session whose transaction has only locked rows
 *       ({@code idle_write_transaction_timeout} would not), and PostgreSQL {@code
 *       idle_in_transaction_session_timeout}.
 *   <li>{@link #urlParameter}, for the connections Debezium's position store opens from a URL:
 *       MariaDB {@code idle_write_transaction_timeout}, which leaves a library's read-only
 *       transaction alone; PostgreSQL {@code idle_in_transaction_session_timeout} (the driver's
 *       {@code options}).
 * </ul>
 *
 * <p>MySQL has no such setting: there a frozen process holds its rows until it wakes. Stateless.
 */
public final class IdleTransactionBound {

  private IdleTransactionBound() {}

  /**
   * The bound for a lease: half of it, rounded up to whole seconds, at least one second.
   *
   * @param lease the lease whose takeover the bound must not hold back
   * @return the bound in seconds
   */
  public static long seconds(Duration lease) {
    return Math.max(1, (lease.toMillis() / 2 + 999) / 1000);
  }

  /**
   * Sets the bound on an open connection; does nothing on MySQL.
   *
   * @param c the connection
   * @param dialect the database
   * @param lease the lease whose takeover the bound must not hold back
   * @throws SQLException when the setting is refused
   */
  public static void apply(Connection c, SqlDialect dialect, Duration lease) throws SQLException {
    String statement = dialect.idleTransactionTimeout(seconds(lease));
    if (statement != null) {
      try (Statement st = c.createStatement()) {
        st.execute(statement);
      }
    }
  }

  /**
   * The same bound as a JDBC URL parameter, for connections that a library opens from a URL (the
   * CDC position store): MariaDB Connector/J sets it at every connect.
   *
   * @param dialect the database
   * @param lease the lease whose takeover the bound must not hold back
   * @return {@code &sessionVariables=...} (MariaDB) or {@code &options=...} (PostgreSQL) to append
   *     to a URL that has parameters already, or an empty string where there is no such setting
   *     (MySQL)
   */
  public static String urlParameter(SqlDialect dialect, Duration lease) {
    return dialect.idleWriteTransactionUrlParameter(seconds(lease));
  }
}
