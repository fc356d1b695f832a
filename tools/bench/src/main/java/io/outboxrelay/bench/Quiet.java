package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Waits for the bench's MariaDB to finish the background work an earlier group left behind (purging
 * the undo of hundreds of thousands of updated rows), so that it does not weigh on the next group's
 * figures.
 */
final class Quiet {

  /** InnoDB's history list length below which the server counts as quiet. */
  private static final long QUIET_HISTORY = 1_000;

  private Quiet() {}

  /** Waits up to two minutes; says on stderr what it found. */
  static void await(MariaDbServer mariaDb, String before)
      throws SQLException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + 120_000_000_000L;
    long history = history(mariaDb);
    long first = history;
    while (history > QUIET_HISTORY && System.nanoTime() < deadline) {
      Thread.sleep(500);
      history = history(mariaDb);
    }
    System.err.printf(
        "before %s: InnoDB history list %,d -> %,d after %.1f s%n",
        before, first, history, (System.nanoTime() - start) / 1e9);
  }

  private static long history(MariaDbServer mariaDb) throws SQLException {
    try (Connection c = mariaDb.adminConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT `COUNT` FROM information_schema.INNODB_METRICS"
                    + " WHERE NAME = 'trx_rseg_history_len'")) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }
}
