package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One way for polling workers to claim outbox rows, for {@link ClaimBench}. Implementations keep no
 * state and are thread-safe; each worker calls them with its own connection.
 */
interface ClaimStrategy {

  /** Rows one claim takes at most. */
  int BATCH = 100;

  /**
   * The result of one claim.
   *
   * @param ids the rows this worker now owns; empty if it got none
   * @param pendingLeft false only when the claim saw that no PENDING row is left: the worker stops
   */
  record Claimed(List<Long> ids, boolean pendingLeft) {}

  /** A name for the results table. */
  String label();

  /** Sets up a worker's connection (auto-commit, isolation). */
  void prepare(Connection c) throws SQLException;

  /** Claims up to {@link #BATCH} PENDING rows, counting every statement it sends. */
  Claimed claim(Connection c, ClaimCounts counts) throws SQLException;

  /**
   * Marks claimed rows PUBLISHED, as a worker does after Kafka acknowledged them: one UPDATE, and a
   * COMMIT when the connection is not in auto-commit mode. A deadlock victim is retried (its
   * statements count as wasted).
   */
  static void markPublished(Connection c, List<Long> ids, ClaimCounts counts) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        int marked = markOnce(c, ids);
        counts.statements(c.getAutoCommit() ? 1 : 2);
        counts.published(marked);
        return;
      } catch (SQLException e) {
        if (!"40001".equals(e.getSQLState()) || attempt == 5) {
          throw e;
        }
        if (!c.getAutoCommit()) {
          c.rollback();
        }
        counts.deadlock();
        counts.wasted(c.getAutoCommit() ? 1 : 2);
      }
    }
  }

  private static int markOnce(Connection c, List<Long> ids) throws SQLException {
    int marked;
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE outbox_events SET status = 'PUBLISHED', published_at = NOW(6) WHERE id IN ("
                + placeholders(ids.size())
                + ")")) {
      for (int i = 0; i < ids.size(); i++) {
        ps.setLong(i + 1, ids.get(i));
      }
      marked = ps.executeUpdate();
    }
    if (!c.getAutoCommit()) {
      c.commit();
    }
    return marked;
  }

  /** The ids a query selects (its first column), at most {@link #BATCH} by its LIMIT. */
  static List<Long> selectIds(Connection c, String sql) throws SQLException {
    List<Long> ids = new ArrayList<>(BATCH);
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }

  /** {@code ?, ?, ...} */
  static String placeholders(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?"));
  }
}
