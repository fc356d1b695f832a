package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Polling on MariaDB with 20 workers beside an application that keeps inserting: do the claims
 * ({@code SELECT ... FOR UPDATE SKIP LOCKED} at READ COMMITTED, then UPDATEs by primary key) and
 * the application's INSERTs deadlock on gap locks? Counts InnoDB's deadlocks and row lock waits
 * over the run, the application's failed transactions and the relay's deadlock log lines, and
 * checks every event by id and per-aggregate order.
 */
final class GapLockBench {

  private static final int WORKERS = 20;
  private static final int WRITER_THREADS = 10;
  private static final int AGGREGATES = 500;

  private final BenchEnv context;

  GapLockBench(BenchEnv context) {
    this.context = context;
  }

  void run(ResultTable table, int rate, Duration duration) throws Exception {
    try (PollingSetup setup =
            new PollingSetup(
                context, "bench-gaplocks", Map.of("polling.workers", Integer.toString(WORKERS)));
        RelayProcess relay = setup.startRelay()) {
      OutboxDatabase db = setup.db();
      long deadlocks0 = status(db, "INNODB_DEADLOCKS");
      long waits0 = status(db, "INNODB_ROW_LOCK_WAITS");
      long waitMillis0 = status(db, "INNODB_ROW_LOCK_TIME");
      Ledger ledger = new Ledger(setup.topicPrefix());
      SteadyWriter writer =
          SteadyWriter.start(db, ledger, "order", rate, AGGREGATES, WRITER_THREADS);
      Thread.sleep(duration.toMillis());
      writer.stop(Duration.ofSeconds(30));
      long failed = writer.failures();
      if (!setup.awaitPublished(ledger.size(), Duration.ofSeconds(120))) {
        throw new IllegalStateException(
            String.format(
                "the relay published %,d of %,d events within 120 s after the load",
                setup.published(), ledger.size()));
      }
      String latest = latestDeadlock();
      if (!latest.isEmpty()) {
        System.err.println("gap-locks: InnoDB's latest detected deadlock:\n" + latest);
      }
      long deadlocks = status(db, "INNODB_DEADLOCKS") - deadlocks0;
      long waits = status(db, "INNODB_ROW_LOCK_WAITS") - waits0;
      long waitMillis = status(db, "INNODB_ROW_LOCK_TIME") - waitMillis0;
      List<ConsumedRecord> records =
          TopicReader.forTopics(setup.bootstrapServers(), setup.topics().toArray(String[]::new))
              .readAll(Duration.ofSeconds(3));
      Ledger.Result check = ledger.check(records);
      PollingSetup.stop(relay);
      long relayDeadlockLines =
          relay.log().lines().filter(l -> l.toLowerCase().contains("deadlock")).count();
      table.add(
          String.format(
              "gap locks: polling, %d workers, beside %,d events/s of INSERTs (MariaDB)",
              WORKERS, rate),
          String.format(
              "%d deadlocks, %,d row lock waits (%,d ms waited)", deadlocks, waits, waitMillis),
          "0 deadlocks",
          String.format(
              "%,d events in %.0f s from %d writer threads (1-3 per transaction, %d aggregates);"
                  + " application transactions failed: %d; relay log lines naming a deadlock: %d;"
                  + " %s",
              ledger.size(),
              (double) duration.toSeconds(),
              WRITER_THREADS,
              AGGREGATES,
              failed,
              relayDeadlockLines,
              check.summary()));
    }
  }

  /** The statements of InnoDB's latest detected deadlock (its transactions and their SQL). */
  private String latestDeadlock() throws Exception {
    try (java.sql.Connection c = context.mariaDb().adminConnection();
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SHOW ENGINE INNODB STATUS")) {
      if (!rs.next()) {
        return "";
      }
      String text = rs.getString("Status");
      int start = text.indexOf("LATEST DETECTED DEADLOCK");
      if (start < 0) {
        return "";
      }
      int end = text.indexOf("------------\nTRANSACTIONS", start);
      return text.substring(start, end < 0 ? Math.min(text.length(), start + 6000) : end);
    }
  }

  /** A counter of the server's {@code GLOBAL_STATUS}. */
  private static long status(OutboxDatabase db, String name) {
    Object v =
        db.adminQuery(
            "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '"
                + name
                + "'");
    return Long.parseLong(v.toString());
  }
}
