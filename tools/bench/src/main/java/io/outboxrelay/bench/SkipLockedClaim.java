package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

/**
 * The relay's claim: one short READ COMMITTED transaction selects the oldest due PENDING rows
 * {@code FOR UPDATE SKIP LOCKED} and leases them all with one UPDATE. Workers never wait for each
 * other's rows. A claim that gets no row while rows are still PENDING (all of them locked by other
 * claims in flight) was wasted, and so was the check that found them.
 */
final class SkipLockedClaim implements ClaimStrategy {

  private static final String SELECT =
      "SELECT id FROM outbox_events WHERE status = 'PENDING' AND next_attempt_at <= NOW(6)"
          + " ORDER BY id LIMIT "
          + BATCH
          + " FOR UPDATE SKIP LOCKED";
  private static final String LEASE =
      "UPDATE outbox_events SET status = 'PROCESSING', claim_token = ?, processing_until ="
          + " NOW(6) + INTERVAL 60 SECOND, attempts = attempts + 1 WHERE id IN (";
  private static final String ANY_PENDING =
      "SELECT EXISTS (SELECT 1 FROM outbox_events WHERE status = 'PENDING')";

  @Override
  public String label() {
    return "SKIP LOCKED batch claim";
  }

  @Override
  public void prepare(Connection c) throws SQLException {
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
  }

  @Override
  public Claimed claim(Connection c, ClaimCounts counts) throws SQLException {
    int sent = 0;
    try {
      sent++;
      List<Long> ids = ClaimStrategy.selectIds(c, SELECT);
      if (ids.isEmpty()) {
        sent++;
        c.commit();
        // SELECT, COMMIT and the check: wasted unless they found the table drained.
        if (anyPending(c)) {
          counts.emptyClaim();
          counts.wasted(3);
          return new Claimed(List.of(), true);
        }
        counts.statements(3);
        return new Claimed(List.of(), false);
      }
      sent++;
      try (PreparedStatement ps =
          c.prepareStatement(LEASE + ClaimStrategy.placeholders(ids.size()) + ")")) {
        ps.setString(1, UUID.randomUUID().toString());
        for (int i = 0; i < ids.size(); i++) {
          ps.setLong(i + 2, ids.get(i));
        }
        ps.executeUpdate();
      }
      sent++;
      c.commit();
      counts.statements(3);
      counts.claimed(ids.size());
      return new Claimed(ids, true);
    } catch (SQLException e) {
      if (!"40001".equals(e.getSQLState())) {
        throw e;
      }
      // A deadlock victim (MariaDB 1213): rolled back; a relay worker retries, and so do we.
      c.rollback();
      counts.deadlock();
      counts.wasted(sent + 1);
      return new Claimed(List.of(), true);
    }
  }

  /**
   * A plain read: are rows still PENDING (locked by claims in flight)? It takes no lock, so its
   * transaction is left open for the next claim to commit (READ COMMITTED reads afresh).
   */
  private static boolean anyPending(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(ANY_PENDING)) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
