package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.failure.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While a hand-off waits to hold the outbox table, says every few seconds which transactions it
 * waits for: those open on the server when the wait began, oldest first, with their age, the rows
 * they changed and the client they come from ({@code information_schema.INNODB_TRX} and {@code
 * PROCESSLIST}, which list other users' transactions only with the {@code PROCESS} grant; without
 * it the line says so). A transaction that has not used the outbox table is listed too: the server
 * does not say which tables an open transaction used. Runs on its own thread and connection; {@link
 * #close} stops it. Thread-safe.
 */
final class OpenTransactions implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OpenTransactions.class);

  /** Transactions named per line. */
  private static final int LISTED = 5;

  private final Connection connection;
  private final long waiter;
  private final String table;
  private final long startedNanos;
  private final ScheduledExecutorService timer;
  private volatile String lastSeen = "";

  private OpenTransactions(Connection connection, long waiter, String table) {
    this.connection = connection;
    this.waiter = waiter;
    this.table = table;
    this.startedNanos = System.nanoTime();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "handoff-progress");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts reporting: after two seconds, then every five.
   *
   * @param connection a connection of its own, closed with this
   * @param waiter the server's connection id of the waiting session, left out of the list
   * @param table the outbox table, for the lines
   * @return the running reporter
   */
  static OpenTransactions watch(Connection connection, long waiter, String table) {
    OpenTransactions w = new OpenTransactions(connection, waiter, table);
    w.timer.scheduleWithFixedDelay(w::report, 2, 5, TimeUnit.SECONDS);
    return w;
  }

  /**
   * The transactions seen at the last look, for a final message; empty before the first.
   *
   * @return one phrase, or empty
   */
  String lastSeen() {
    return lastSeen;
  }

  private void report() {
    long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
    String seen = look(waited);
    lastSeen = seen;
    LOG.info(
        "waiting {} s for the transactions open on {} to end (new outbox inserts wait meanwhile):"
            + " {}",
        waited,
        table,
        seen);
  }

  private String look(long waitedSeconds) {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT t.trx_id, TIMESTAMPDIFF(SECOND, t.trx_started, NOW()),"
                + " t.trx_rows_modified, p.HOST, t.trx_mysql_thread_id"
                + " FROM information_schema.INNODB_TRX t LEFT JOIN information_schema.PROCESSLIST"
                + " p ON p.ID = t.trx_mysql_thread_id WHERE t.trx_mysql_thread_id NOT IN (?,"
                + " CONNECTION_ID()) AND t.trx_started <= NOW() - INTERVAL ? SECOND"
                + " ORDER BY t.trx_started")) {
      ps.setLong(1, waiter);
      ps.setLong(2, waitedSeconds);
      List<String> found = new ArrayList<>();
      int total = 0;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          total++;
          if (found.size() < LISTED) {
            found.add(
                "trx "
                    + rs.getString(1)
                    + " open "
                    + rs.getLong(2)
                    + " s, "
                    + rs.getLong(3)
                    + " rows changed, from "
                    + (rs.getString(4) == null ? "?" : rs.getString(4))
                    + " (connection "
                    + rs.getLong(5)
                    + ")");
          }
        }
      }
      connection.rollback();
      if (total == 0) {
        return "none left open (the lock is about to be granted)";
      }
      return total
          + " open since before the wait: "
          + String.join("; ", found)
          + (total > found.size() ? "; and " + (total - found.size()) + " more" : "");
    } catch (SQLException e) {
      if (SqlErrors.isPrivilegeDenied(e)) {
        return "grant the relay's user PROCESS to see which";
      }
      return "cannot list them: " + Connections.oneLine(e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      connection.close();
    } catch (SQLException ignored) {
      // nothing was written on it
    }
  }
}
