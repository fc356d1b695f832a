package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Polling retention over one connection: deletes PUBLISHED rows published longer ago than an age,
 * one window of the batch size per short READ COMMITTED transaction. DEAD and unpublished rows are
 * never touched. Every time in a predicate is the database's clock.
 *
 * <p>Not thread-safe: one instance per sweep, which owns the connection.
 */
final class OutboxRetention {

  /**
   * One step of a retention sweep.
   *
   * @param deleted rows deleted
   * @param next the id the next step starts after, or -1 when the sweep is done
   */
  record RetentionStep(int deleted, long next) {}

  private final Connection connection;
  private final SqlDialect dialect;
  private final String windowEnd;
  private final String delete;

  /**
   * @param id the sequence column, which orders the rows
   */
  OutboxRetention(Connection connection, SqlDialect dialect, String table, String id)
      throws SQLException {
    this.connection = connection;
    this.dialect = dialect;
    OutboxStore.readCommitted(connection);
    this.windowEnd =
        OutboxStatements.windowEndQuery(
            dialect,
            table,
            id,
            "PUBLISHED",
            ", CASE WHEN created_at < " + dialect.nowMinus() + " THEN 1 ELSE 0 END");
    this.delete =
        "DELETE FROM "
            + table
            + " WHERE status = 'PUBLISHED' AND "
            + id
            + " > ? AND "
            + id
            + " <= ? AND published_at < "
            + dialect.nowMinus();
  }

  /**
   * Deletes the rows published more than {@code age} ago among the next {@code window} PUBLISHED
   * rows after id {@code after}, in one short transaction. A sweep starts after 0 and goes on while
   * the window's last row was <em>created</em> more than {@code age} ago: a row created later
   * cannot have been published earlier, so the sweep reads only rows created before the cut-off,
   * however many younger ones the table keeps, and rows published late (retried or requeued events)
   * never hold back the old rows behind them. It reads {@code (status, id)} and needs no index on
   * {@code published_at} (one that every finish would update).
   *
   * @return what it deleted and where the next step starts
   * @throws SQLException when the transaction fails (it is rolled back)
   */
  RetentionStep deleteOldPublished(long after, Duration age, int window) throws SQLException {
    try {
      long end = Long.MAX_VALUE;
      boolean more = false;
      try (PreparedStatement ps = connection.prepareStatement(windowEnd)) {
        dialect.bindDuration(ps, 1, age);
        ps.setLong(2, after);
        ps.setInt(3, window - 1);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            end = rs.getLong(1);
            more = rs.getInt(2) == 1;
          }
        }
      }
      int deleted;
      try (PreparedStatement ps = connection.prepareStatement(delete)) {
        ps.setLong(1, after);
        ps.setLong(2, end);
        dialect.bindDuration(ps, 3, age);
        deleted = ps.executeUpdate();
      }
      connection.commit();
      return new RetentionStep(deleted, more ? end : -1);
    } catch (SQLException | RuntimeException e) {
      OutboxStore.rollbackQuietly(connection);
      throw e;
    }
  }

  /**
   * The query for a retention window's last id and whether it was created before the cut-off, for
   * EXPLAIN in tests; parameters: the age, the start (exclusive), the window size minus one.
   */
  String windowEndSql() {
    return windowEnd;
  }

  /**
   * The retention delete, for EXPLAIN in tests; parameters: the start (exclusive), the end
   * (inclusive), the age.
   */
  String deleteSql() {
    return delete;
  }

  /** Closes the connection, ignoring failures. */
  void closeQuietly() {
    SourceConnections.closeQuietly(connection);
  }
}
