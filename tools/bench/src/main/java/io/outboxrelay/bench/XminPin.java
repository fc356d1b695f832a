package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.SourceDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What holds PostgreSQL's xmin horizon in the pinned-xmin group: an application session that runs
 * {@code BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM outbox_events;} and then sits
 * idle in that transaction, as a long report or a {@code pg_dump} does; or, with {@code write},
 * also inserts a row into another table of the database first ({@code bench_pin_side}), as a long
 * batch job does, so that the transaction has a transaction id. Its snapshot keeps every row
 * version deleted or updated after it was taken from being removed (VACUUM counts them as dead but
 * not yet removable) until {@link #close()} rolls it back. Not thread-safe.
 */
final class XminPin implements AutoCloseable {

  private final Connection connection;
  private final long pid;
  private final long rowsSeen;
  private boolean closed;

  private XminPin(Connection connection, long pid, long rowsSeen) {
    this.connection = connection;
    this.pid = pid;
    this.rowsSeen = rowsSeen;
  }

  /**
   * Opens the transaction as the database's application user and takes its snapshot.
   *
   * @param write whether the transaction also writes (another table), taking a transaction id
   * @return the open pin
   * @throws SQLException when the session or the query fails
   */
  static XminPin open(SourceDatabase db, boolean write) throws SQLException {
    if (write) {
      db.admin(
          "CREATE TABLE IF NOT EXISTS bench_pin_side (x int)",
          "GRANT INSERT ON bench_pin_side TO PUBLIC");
    }
    Connection c = db.app(); // auto-commit off: the driver sends BEGIN before the first query
    try {
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      long rows = firstLong(c, "SELECT count(*) FROM outbox_events"); // the snapshot is taken here
      if (write) {
        try (Statement st = c.createStatement()) {
          st.execute("INSERT INTO bench_pin_side VALUES (1)"); // takes a transaction id
        }
      }
      long pid = firstLong(c, "SELECT pg_backend_pid()");
      return new XminPin(c, pid, rows);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  /** The server process of the pinning session, as {@code pg_stat_activity.pid} shows it. */
  long pid() {
    return pid;
  }

  /** The rows its snapshot counted. */
  long rowsSeen() {
    return rowsSeen;
  }

  /**
   * Checks that the transaction is still open (the server has not ended the session), rolls it back
   * and closes the session. Idempotent.
   *
   * @return whether the transaction was still open when it was rolled back
   */
  boolean release() {
    if (closed) {
      return false;
    }
    closed = true;
    try (connection) {
      // Still the same snapshot: a REPEATABLE READ transaction counts the same rows again.
      boolean open = firstLong(connection, "SELECT count(*) FROM outbox_events") == rowsSeen;
      connection.rollback();
      return open;
    } catch (SQLException e) {
      return false;
    }
  }

  @Override
  public void close() {
    release();
  }

  private static long firstLong(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
