package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The naive claim: read the oldest PENDING ids without locking, then try to take each one with its
 * own auto-committed conditional UPDATE. Workers read the same ids and race for them row by row; an
 * UPDATE that changes no row lost the race and was wasted. The status condition keeps a row from
 * being claimed twice.
 */
final class NaiveClaim implements ClaimStrategy {

  private static final String SELECT =
      "SELECT id FROM outbox_events WHERE status = 'PENDING' ORDER BY id LIMIT " + BATCH;
  private static final String TAKE =
      "UPDATE outbox_events SET status = 'PROCESSING', claim_token = ? WHERE id = ? AND status ="
          + " 'PENDING'";

  @Override
  public String label() {
    return "naive SELECT + UPDATE per row";
  }

  @Override
  public void prepare(Connection c) throws SQLException {
    c.setAutoCommit(true);
  }

  @Override
  public Claimed claim(Connection c, ClaimCounts counts) throws SQLException {
    List<Long> candidates = ClaimStrategy.selectIds(c, SELECT);
    counts.statements(1);
    if (candidates.isEmpty()) {
      return new Claimed(List.of(), false);
    }
    String token = UUID.randomUUID().toString();
    List<Long> won = new ArrayList<>(candidates.size());
    try (PreparedStatement ps = c.prepareStatement(TAKE)) {
      for (long id : candidates) {
        ps.setString(1, token);
        ps.setLong(2, id);
        if (ps.executeUpdate() == 1) {
          won.add(id);
          counts.statements(1);
        } else {
          counts.wasted(1);
        }
      }
    }
    counts.claimed(won.size());
    return new Claimed(won, true);
  }
}
