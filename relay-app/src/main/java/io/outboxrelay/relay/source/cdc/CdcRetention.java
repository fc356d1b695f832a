package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.leader.LeadershipStore;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC retention ({@code cdc.retention}): deletes outbox rows the relay has certainly published,
 * once they are older than the configured age.
 *
 * <p>A sweep opens a consistent snapshot ({@link BinlogSnapshot}; on PostgreSQL a REPEATABLE READ
 * snapshot with the WAL insert position read in it) and, in it, collects the ids of rows created
 * before the cut-off, oldest id first (windows of the batch size through the primary key, going on
 * while a window's last row is old enough). Every row the snapshot sees was committed before the
 * snapshot's binlog position. The sweep then waits until the relay's committed position (its row in
 * {@code cdc.offsets.table}) is at or past that position: from then on those rows are published,
 * whatever happens to the relay, and they are deleted by id, a batch per transaction. A row
 * committed after the snapshot (a late transaction with a low id included) is never collected.
 * Nothing depends on what the relay has in flight, so a relay killed mid-batch cannot make it
 * delete an unpublished row: only a committed position counts.
 *
 * <p>Only the leader sweeps (the leadership row names this process and has not expired, by the
 * database clock); a standby looks again at the next interval. Runs on its own daemon thread;
 * {@link #stop} from any thread.
 */
final class CdcRetention implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(CdcRetention.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Most rows one sweep deletes, in batches; the rest wait for the next sweep. */
  static final int MAX_WINDOWS_PER_SWEEP = 100;

  private final String context;
  private final SourceConfig source;
  private final CdcConfig cdc;
  private final String relayName;
  private final String holder;
  private final String table;
  private final SqlDialect dialect;
  private volatile boolean running = true;
  private Thread thread;

  CdcRetention(RelayConfig config, String holder) {
    this.context = config.logContext();
    this.source = config.source();
    this.cdc = config.cdc();
    this.relayName = config.name();
    this.holder = holder;
    this.dialect = SqlDialect.of(source.flavor());
    this.table = dialect.qualifiedTable(source);
  }

  /** Starts the sweeps on a daemon thread. */
  void start() {
    thread = new Thread(this, "cdc-retention");
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops after the statement in progress. */
  void stop() {
    running = false;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  @Override
  public void run() {
    while (running) {
      try {
        sweep();
      } catch (SQLException e) {
        if (running) {
          LOG.warn(
              "[{}] deleting published outbox rows failed ({}); will try again in {} (cdc.retention"
                  + " needs DELETE on {} for source.user)",
              context,
              ErrorClassifier.describe(e),
              cdc.retentionInterval(),
              table);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (!pause(cdc.retentionInterval())) {
        return;
      }
    }
  }

  /** One sweep; returns how many rows it deleted. */
  long sweep() throws SQLException, InterruptedException {
    try (Connection c =
        DriverManager.getConnection(source.jdbcUrl(), source.user(), source.password().reveal())) {
      c.setAutoCommit(false);
      if (!leading(c)) {
        return 0;
      }
      Object snapshot = dialect.hasBinlog() ? BinlogSnapshot.begin(c) : walSnapshot(c);
      List<Long> ids = collect(c);
      c.commit();
      if (ids.isEmpty() || !awaitCommitted(c, snapshot)) {
        return 0;
      }
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      long deleted = 0;
      for (int from = 0; from < ids.size() && running; from += cdc.retentionBatchSize()) {
        deleted +=
            delete(c, ids.subList(from, Math.min(ids.size(), from + cdc.retentionBatchSize())));
      }
      if (deleted > 0) {
        LOG.info(
            "[{}] deleted {} published outbox rows older than {} (published up to {})",
            context,
            deleted,
            cdc.retention(),
            snapshot);
      }
      return deleted;
    }
  }

  private boolean leading(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT holder = ? AND expires_at > "
                + dialect.now()
                + " FROM "
                + cdc.leaderTable()
                + " WHERE resource = ?")) {
      ps.setString(1, holder);
      ps.setString(2, LeadershipStore.resourceOf(source));
      try (ResultSet rs = ps.executeQuery()) {
        boolean leading = rs.next() && rs.getBoolean(1);
        c.commit();
        return leading;
      }
    }
  }

  /**
   * Whether the table has polling's {@code status} column: its {@code DEAD} and {@code SKIPPED}
   * rows (left by polling mode, never published) are kept.
   */
  private boolean hasStatus(Connection c) throws SQLException {
    return OutboxColumns.hasStatus(c, source);
  }

  /** The ids of rows old enough, as the open snapshot sees them. */
  private List<Long> collect(Connection c) throws SQLException {
    List<Long> ids = new ArrayList<>();
    int window = cdc.retentionBatchSize();
    long after = 0;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + source.sequenceColumn()
                + ", created_at < "
                + dialect.nowMinus()
                + ", "
                + (hasStatus(c) ? "status IN ('DEAD', 'SKIPPED')" : "FALSE")
                + " FROM "
                + table
                + " WHERE "
                + source.sequenceColumn()
                + " > ? ORDER BY "
                + source.sequenceColumn()
                + " LIMIT ?")) {
      for (int w = 0; w < MAX_WINDOWS_PER_SWEEP && running; w++) {
        dialect.bindDuration(ps, 1, cdc.retention());
        ps.setLong(2, after);
        ps.setInt(3, window);
        int rows = 0;
        boolean lastOld = false;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows++;
            after = rs.getLong(1);
            lastOld = rs.getBoolean(2);
            if (lastOld && !rs.getBoolean(3)) {
              ids.add(after);
            }
          }
        }
        // Ids grow with creation time, so past a row too young to delete the rest are younger.
        if (rows < window || !lastOld) {
          break;
        }
      }
    }
    return ids;
  }

  /**
   * Waits, up to one interval, until the committed position is at or past {@code snapshot}.
   *
   * @return whether it got there
   */
  private boolean awaitCommitted(Connection c, Object snapshot)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + cdc.retentionInterval().toNanos();
    while (running) {
      Optional<?> committed = dialect.hasBinlog() ? committed(c) : committedLsn(c);
      if (committed.isPresent() && reached(committed.get(), snapshot)) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        LOG.debug(
            "[{}] the committed position {} has not reached {} yet; retention waits for the next"
                + " sweep",
            context,
            committed.map(Object::toString).orElse("(none)"),
            snapshot);
        return false;
      }
      Thread.sleep(200);
    }
    return false;
  }

  private static boolean reached(Object committed, Object snapshot) {
    if (committed instanceof BinlogSnapshot.Position p) {
      return p.atOrAfter((BinlogSnapshot.Position) snapshot).orElse(false);
    }
    return Long.compareUnsigned((Long) committed, (Long) snapshot) >= 0;
  }

  /**
   * On PostgreSQL: opens a REPEATABLE READ snapshot and returns the WAL insert position read in it,
   * which is past the commit record of every row the snapshot sees.
   */
  private static Long walSnapshot(Connection c) throws SQLException {
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * On PostgreSQL: the LSN before which every transaction was published, from the relay's stored
   * position: the later of {@code lsn_commit} (the end of the last transaction processed in full)
   * and {@code lsn} (the change or message processed last: every transaction committing before it
   * was processed before it, in commit order). Empty before a position exists.
   */
  private Optional<Long> committedLsn(Connection c) throws SQLException {
    Optional<Long> found = Optional.empty();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT offset_key, offset_val FROM " + cdc.offsetsTable())) {
      while (rs.next()) {
        JsonNode key = parse(rs.getString(1));
        if (key.isArray() && relayName.equals(key.path(1).path("server").asText(null))) {
          JsonNode offset = parse(rs.getString(2));
          long lsn = Math.max(offset.path("lsn").asLong(0), offset.path("lsn_commit").asLong(0));
          found = lsn > 0 ? Optional.of(lsn) : Optional.empty();
        }
      }
    }
    c.commit();
    return found;
  }

  /** The restart position the relay last committed: everything before it was published. */
  private Optional<BinlogSnapshot.Position> committed(Connection c) throws SQLException {
    Optional<BinlogSnapshot.Position> found = Optional.empty();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT offset_key, offset_val FROM " + cdc.offsetsTable())) {
      while (rs.next()) {
        JsonNode key = parse(rs.getString(1));
        if (key.isArray() && relayName.equals(key.path(1).path("server").asText(null))) {
          JsonNode offset = parse(rs.getString(2));
          String file = offset.path("file").asText("");
          found =
              file.isEmpty() || !offset.path("pos").isNumber()
                  ? Optional.empty()
                  : Optional.of(new BinlogSnapshot.Position(file, offset.path("pos").asLong()));
        }
      }
    }
    c.commit();
    return found;
  }

  private int delete(Connection c, List<Long> ids) throws SQLException {
    int n =
        dialect.executeForIds(c, "DELETE FROM " + table + " WHERE ", source.sequenceColumn(), ids);
    c.commit();
    return n;
  }

  private boolean pause(Duration d) {
    long until = System.nanoTime() + d.toNanos();
    while (running && System.nanoTime() < until) {
      try {
        Thread.sleep(Math.min(100, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return running;
  }

  private static JsonNode parse(String text) {
    try {
      return text == null ? JSON.missingNode() : JSON.readTree(text);
    } catch (IOException e) {
      return JSON.missingNode();
    }
  }
}
