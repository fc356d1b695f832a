package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff --to cdc} (every relay stopped): the unpublished rows ({@code
 * PENDING}, due for retry or not, and {@code PROCESSING}, leased or not) are deleted and inserted
 * again, in id order, unchanged but for their claim, after a binlog position that is stored as the
 * CDC relay's position, in one transaction. CDC then publishes exactly the re-inserted rows, in id
 * order, and then whatever the application commits later; rows polling published stay behind the
 * position. {@code DEAD} and {@code SKIPPED} rows stay as they are.
 *
 * <p><b>Holding the table.</b> That transaction runs under {@code LOCK TABLES ... WRITE} on the
 * outbox table (and the offsets and hand-off tables it writes). While the lock is pending the
 * server makes every new statement on the outbox table wait behind it, so the command waits only
 * for the finite set of transactions that used the table before it asked: a locking read would
 * instead wait for each open transaction it meets while new rows keep arriving behind it, and under
 * a steady writer with transactions held open for seconds never finish. The wait is bounded: it is
 * tried for {@link #FIRST_ATTEMPT}, then for twice as long each time, until {@code --timeout}; new
 * inserts go on between attempts (so a cycle between the lock and an application transaction that
 * waits on a row another blocked insert holds is broken), and a progress line names the
 * transactions it waits for ({@link OpenTransactions}). On timeout nothing is changed (exit 1).
 * Refused when the table is CDC's already. Not thread-safe.
 */
final class HandoffToCdc {

  private static final Logger LOG = LoggerFactory.getLogger(HandoffToCdc.class);

  /** The first attempt's wait for the table; each further attempt waits twice as long. */
  static final Duration FIRST_ATTEMPT = Duration.ofSeconds(10);

  private final Handoff h;

  HandoffToCdc(Handoff h) {
    this.h = h;
  }

  /**
   * Hands the table from polling to CDC.
   *
   * @param timeout how long to wait, in all, for the transactions open on the table
   * @throws AdminException when a relay still runs or the table is CDC's already (exit 2), or the
   *     wait timed out or the database fails (exit 1)
   */
  void run(Duration timeout) throws AdminException {
    h.run(
        c -> {
          handOver(c, timeout);
          return null;
        });
  }

  private void handOver(Connection c, Duration timeout) throws SQLException, AdminException {
    Set<String> columns = h.requirePollingColumns(c);
    RelayPresence.requireNone(c, h.config, "handing the table to CDC");
    ModeOwnership.TableState state = h.state(c, columns);
    Handoff.refuse(ModeOwnership.handoffToCdcProblem(state, h.config.name()));
    h.ensureRecordTable(c);
    long started = System.nanoTime();
    holdTable(c, timeout);
    long held = System.nanoTime();
    RowCopy rows;
    BinlogServer.Position at;
    long dead;
    try {
      rows = RowCopy.lockUnpublished(c, h.table, h.source.sequenceColumn());
      at = BinlogServer.current(c, SourceFlavor.MARIADB);
      rows.reinsert(c, h.table, Handoff.BATCH);
      dead = countDeadOrSkipped(c);
      OffsetsRow.write(
          c,
          h.config.cdc().offsetsTable(),
          h.config.name(),
          OffsetsRow.read(c, h.config.cdc().offsetsTable(), h.config.name(), true),
          at,
          serverId(c),
          OffsetsRow.databaseNow(c));
      HandoffRecords.begin(
          c,
          h.source,
          RelayMode.CDC,
          h.config.name(),
          h.operator.name(),
          true,
          rows.size() + " unpublished rows inserted again after binlog position " + at);
      c.commit();
    } finally {
      unlock(c);
    }
    long waitedMillis = (held - started) / 1_000_000;
    long heldMillis = (System.nanoTime() - held) / 1_000_000;
    LOG.info(
        "operator {} handed {} from polling to CDC relay {}: {} unpublished rows inserted again"
            + " after binlog position {}, where the relay now starts",
        h.operator.name(),
        h.table,
        h.config.name(),
        rows.size(),
        at);
    h.out.println(
        "handed "
            + h.table
            + " to CDC: relay "
            + h.config.name()
            + " starts at "
            + at
            + "; the "
            + rows.size()
            + " rows polling had not published were inserted again after it, in id order, and are"
            + " published first (new outbox inserts waited up to "
            + (waitedMillis + heldMillis)
            + " ms: "
            + waitedMillis
            + " ms for the transactions open on the table, "
            + heldMillis
            + " ms for the hand-off); start the CDC relay now (outbox-relay run)");
    if (dead > 0) {
      h.out.println(
          "note: " + dead + " DEAD or SKIPPED rows stay as they are; CDC does not publish them");
    }
  }

  /**
   * Takes {@code LOCK TABLES ... WRITE} on the outbox, offsets and hand-off tables, in attempts
   * that each wait up to twice as long as the last, until {@code timeout} has passed.
   *
   * @throws AdminException (exit 1) when the time is up, naming what it waited for
   */
  private void holdTable(Connection c, Duration timeout) throws SQLException, AdminException {
    String db = h.source.database();
    String lock =
        "LOCK TABLES "
            + h.table
            + " WRITE, "
            + db
            + "."
            + h.config.cdc().offsetsTable()
            + " WRITE, "
            + db
            + "."
            + HandoffRecords.TABLE
            + " WRITE";
    long deadline = System.nanoTime() + timeout.toNanos();
    Duration attempt = FIRST_ATTEMPT;
    long connectionId = connectionId(c);
    try (OpenTransactions open =
        OpenTransactions.watch(Connections.open(h.source), connectionId, h.table)) {
      for (int n = 1; ; n++) {
        Duration left = Duration.ofNanos(deadline - System.nanoTime());
        Duration wait = attempt.compareTo(left) < 0 ? attempt : left;
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        try (Statement s = c.createStatement()) {
          s.execute("SET SESSION lock_wait_timeout = " + seconds);
          s.execute("SET SESSION innodb_lock_wait_timeout = " + seconds);
          s.execute(lock);
          return;
        } catch (SQLException e) {
          if (!SqlErrors.isLockWaitTimeout(e)) {
            throw e;
          }
          if (System.nanoTime() >= deadline - 500_000_000L) {
            String seen = open.lastSeen();
            throw AdminException.failure(
                "the hand-off of "
                    + h.table
                    + " timed out after "
                    + timeout.toSeconds()
                    + " s waiting for the transactions open on it to end"
                    + (seen.isEmpty() ? "" : " (" + seen + ")")
                    + "; nothing was changed. Run it again once they have ended, or with a"
                    + " longer --timeout",
                e);
          }
          LOG.info(
              "attempt {}: the transactions open on {} did not end within {} s; new outbox inserts"
                  + " go on for a moment, then the hand-off asks for the table again",
              n,
              h.table,
              seconds);
          attempt = attempt.multipliedBy(2);
        }
      }
    }
  }

  private static void unlock(Connection c) {
    try (Statement s = c.createStatement()) {
      c.rollback(); // nothing to undo after the commit; ends the transaction before the unlock
      s.execute("UNLOCK TABLES");
    } catch (SQLException e) {
      LOG.debug(
          "UNLOCK TABLES failed; closing the connection releases the tables: {}", e.toString());
    }
  }

  private static long connectionId(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT CONNECTION_ID()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long countDeadOrSkipped(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM " + h.table + " WHERE status IN ('DEAD', 'SKIPPED')");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static long serverId(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT @@server_id");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
