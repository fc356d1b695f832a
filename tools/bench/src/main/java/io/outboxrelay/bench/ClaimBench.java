package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claim strategies compared without Kafka: 20 worker threads, each on its own connection as the
 * relay's user, drain a backlog by claiming rows and marking them PUBLISHED at once, so that only
 * the cost of claiming differs. Each strategy gets a fresh outbox table; afterwards every row must
 * be PUBLISHED and have been claimed exactly once.
 */
final class ClaimBench {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimBench.class);
  private static final int WORKERS = 20;

  private final MariaDbServer mariaDb;

  ClaimBench(MariaDbServer mariaDb) {
    this.mariaDb = mariaDb;
  }

  void run(ResultTable table, int rows) throws Exception {
    for (ClaimStrategy strategy : List.of(new NaiveClaim(), new SkipLockedClaim())) {
      boolean skipLocked = strategy instanceof SkipLockedClaim;
      try (OutboxDatabase db = OutboxDatabase.on(mariaDb).grantPolling()) {
        Backlog.write(db, 0, rows);
        ClaimCounts counts = new ClaimCounts();
        long t0 = System.nanoTime();
        drain(db, strategy, counts);
        double seconds = (System.nanoTime() - t0) / 1e9;
        String check = verify(db, rows, counts, skipLocked);
        table.add(
            String.format("claims, %s (%d workers, %,d rows)", strategy.label(), WORKERS, rows),
            String.format("%,.0f events/s", rows / seconds),
            "-",
            String.format(
                "%.2f statements/event (round trips, COMMIT included); no Kafka; %s",
                (double) counts.statements() / counts.published(), check));
        table.add(
            "claims, " + strategy.label() + ": wasted statements",
            String.format("%.3f per event", (double) counts.wasted() / counts.published()),
            skipLocked ? "<= 0.05 wasted per event" : "-",
            (skipLocked
                    ? String.format(
                        "%,d claims found no free row while rows were PENDING (3 statements each)",
                        counts.emptyClaims())
                    : String.format("%,d UPDATEs lost the race (changed 0 rows)", counts.wasted()))
                + String.format("; %,d deadlock victims, retried", counts.deadlocks()));
        if (counts.deadlocks() > 0) {
          LOG.warn("{} deadlocks; the latest:\n{}", strategy.label(), latestDeadlock());
        }
      }
    }
  }

  /** The LATEST DETECTED DEADLOCK section of the InnoDB monitor, for the log. */
  private String latestDeadlock() {
    try (Connection c = mariaDb.adminConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW ENGINE INNODB STATUS")) {
      rs.next();
      String status = rs.getString("Status");
      int from = status.indexOf("LATEST DETECTED DEADLOCK");
      int to = status.indexOf("TRANSACTIONS\n------------", from);
      return from < 0 ? "(none reported)" : status.substring(from, to < 0 ? status.length() : to);
    } catch (SQLException e) {
      return "(cannot read: " + e + ")";
    }
  }

  private static void drain(OutboxDatabase db, ClaimStrategy strategy, ClaimCounts counts)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int i = 0; i < WORKERS; i++) {
        workers.add(
            pool.submit(
                () -> {
                  try (Connection c =
                      DriverManager.getConnection(db.jdbcUrl(), db.relayUser(), db.password())) {
                    strategy.prepare(c);
                    while (true) {
                      ClaimStrategy.Claimed claimed = strategy.claim(c, counts);
                      if (!claimed.ids().isEmpty()) {
                        ClaimStrategy.markPublished(c, claimed.ids(), counts);
                      } else if (!claimed.pendingLeft()) {
                        return null;
                      }
                    }
                  }
                }));
      }
      for (Future<?> w : workers) {
        w.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Every row PUBLISHED, each claimed (and marked) exactly once: "verified" or what is wrong. */
  private static String verify(OutboxDatabase db, int rows, ClaimCounts counts, boolean leased) {
    long published =
        ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE status = 'PUBLISHED'"))
            .longValue();
    List<String> problems = new ArrayList<>();
    if (published != rows) {
      problems.add(String.format("%,d of %,d rows PUBLISHED", published, rows));
    }
    if (counts.claimed() != rows || counts.published() != rows) {
      problems.add(
          String.format(
              "%,d claims and %,d PUBLISHED marks for %,d rows",
              counts.claimed(), counts.published(), rows));
    }
    if (leased) {
      Number claims = (Number) db.adminQuery("SELECT SUM(attempts) FROM outbox_events");
      if (claims.longValue() != rows) {
        problems.add(
            String.format("attempts add up to %,d for %,d rows", claims.longValue(), rows));
      }
    }
    return problems.isEmpty()
        ? "verified: every row claimed once and PUBLISHED"
        : "CHECK FAILED: " + String.join("; ", problems);
  }
}
