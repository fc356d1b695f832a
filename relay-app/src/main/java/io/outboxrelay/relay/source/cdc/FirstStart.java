package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.FirstStartAction;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first start of a {@code relay.name} (no stored position), before its engine starts, in the
 * leader's term: takes a consistent snapshot of the outbox table together with the binlog position
 * it corresponds to, without locking the table; publishes the rows the snapshot holds that are not
 * published yet, in id order, through the run's {@link OutboxChangeConsumer} (same routing, poison
 * action and acknowledgements as streamed events); then stores that position, fenced by the term's
 * epoch, and the engine streams from it. Every row committed before the snapshot is in it, every
 * row committed after it is in the binlog after the position: nothing is left out. A crash before
 * the position is stored publishes the snapshot again (duplicates, never loss).
 *
 * <p>{@code cdc.first.start=skip} takes the same snapshot and position and publishes none of its
 * rows. After {@code handoff --to cdc} for this relay (the table's latest hand-off gives it to CDC
 * relay {@code relay.name}, and the hand-off cleared the stored position), the rows polling left
 * unpublished are published whatever {@code cdc.first.start} says.
 *
 * <p>MariaDB reports the binlog position of a consistent snapshot exactly ({@link BinlogSnapshot}).
 * MySQL does not: the position is read just before the snapshot opens, so a transaction that
 * commits in between is both in the snapshot and after the position, and is published twice. Not
 * thread-safe: one per run.
 */
final class FirstStart {

  private static final Logger LOG = LoggerFactory.getLogger(FirstStart.class);

  /** Rows read from the snapshot, and published, per window. */
  static final int WINDOW = 1000;

  /** Statuses of rows there is nothing to publish for. */
  private static final String DONE = "('PUBLISHED', 'DEAD', 'SKIPPED')";

  private final RelayConfig config;
  private final SourceConfig source;
  private final String holder;
  private final long epoch;
  private int staleHistory; // schema history records of an earlier run, deleted with the store

  FirstStart(RelayConfig config, String holder, long epoch) {
    this.config = config;
    this.source = config.source();
    this.holder = holder;
    this.epoch = epoch;
  }

  /**
   * Whether a run must start with this: the relay has no stored position and the engine would
   * otherwise start at the current binlog position ({@code snapshot.mode=no_data}, the relay's
   * default; an operator's {@code debezium.snapshot.mode} is left to Debezium).
   *
   * @param config the relay configuration
   * @param properties the engine's properties
   * @return whether to run the first start
   * @throws SQLException when the stored position cannot be read
   */
  static boolean needed(RelayConfig config, Properties properties) throws SQLException {
    return "no_data".equals(properties.getProperty("snapshot.mode"))
        && ResumePoint.read(config.source(), config.cdc(), config.name()).isEmpty();
  }

  /**
   * Publishes what the snapshot holds (or counts it, to skip) and stores its position.
   *
   * @param consumer the run's consumer
   * @return true when the position is stored; false when the run stopped or lost leadership first
   * @throws SQLException when the database fails
   * @throws InterruptedException when interrupted
   * @throws RelayFailure when an event cannot be published and {@code cdc.poison.action=fail}
   */
  boolean run(OutboxChangeConsumer consumer)
      throws SQLException, InterruptedException, StartupCheckException {
    String context = config.logContext();
    String table = source.database() + "." + source.table();
    try (Connection c = SourceConnections.open(source)) {
      c.setAutoCommit(false);
      Optional<HandoffRecords.Handoff> handoff = HandoffRecords.latest(c, source);
      boolean handedOver =
          handoff.isPresent()
              && handoff.get().to() == RelayMode.CDC
              && handoff.get().relayName().equals(config.name());
      Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
      c.commit();
      boolean publish = handedOver || config.cdc().firstStart() == FirstStartAction.PUBLISH;
      String where =
          OutboxColumns.has(columns, "status") ? "e.status NOT IN " + DONE + " AND " : "";
      BinlogPosition at = snapshot(c);
      long rows;
      if (publish) {
        rows = publish(c, RowLayout.forSnapshot(source, columns), where, consumer);
        if (rows < 0) {
          c.rollback();
          return false;
        }
      } else {
        rows = count(c, where);
      }
      c.rollback(); // ends the snapshot
      if (!store(c, at)) {
        LOG.warn(
            "[{}] the first start's position was not stored: the lease of {} is no longer held in"
                + " epoch {}; the next leader starts again",
            context,
            table,
            epoch);
        return false;
      }
      String why =
          handedOver
              ? " that polling left unpublished ('handoff --to cdc' "
                  + handoff.get().describe()
                  + ")"
              : " already in the table (cdc.first.start="
                  + config.cdc().firstStart().name().toLowerCase(java.util.Locale.ROOT)
                  + ")";
      LOG.info(
          "[{}] first start of relay.name '{}': {} {} rows of {}{}, read from a consistent"
              + " snapshot at binlog position {}; streaming from there",
          context,
          config.name(),
          publish ? "published" : "skipped",
          rows,
          table,
          why,
          at);
      if (staleHistory > 0) {
        LOG.info(
            "[{}] deleted {} schema history records an earlier run of relay.name '{}' left: the"
                + " engine reads the definition of {} as it is now",
            context,
            staleHistory,
            config.name(),
            table);
      }
      return true;
    }
  }

  /** A binlog position with the GTIDs completed there ({@code null} when unknown). */
  record BinlogPosition(String file, long pos, String gtids) {
    @Override
    public String toString() {
      return file + ":" + pos + (gtids == null || gtids.isEmpty() ? "" : " (GTIDs " + gtids + ")");
    }
  }

  /** Opens the snapshot on {@code c} and returns its binlog position. */
  private BinlogPosition snapshot(Connection c) throws SQLException {
    if (source.flavor() == SourceFlavor.MARIADB) {
      BinlogSnapshot.Position p = BinlogSnapshot.begin(c);
      String gtids;
      try (PreparedStatement ps = c.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
        ps.setString(1, p.file());
        ps.setLong(2, p.pos());
        try (ResultSet rs = ps.executeQuery()) {
          gtids = rs.next() ? rs.getString(1) : null;
        }
      }
      return new BinlogPosition(p.file(), p.pos(), gtids);
    }
    // MySQL: no position tied to a snapshot. Read before it opens: what commits in between is in
    // both, and published twice, never left out.
    BinlogPosition before = mysqlStatus(c);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement st = c.createStatement()) {
      st.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    }
    return before;
  }

  private static BinlogPosition mysqlStatus(Connection c) throws SQLException {
    SQLException first = null;
    for (String sql : List.of("SHOW BINARY LOG STATUS", "SHOW MASTER STATUS")) {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(sql)) {
        if (!rs.next()) {
          throw new SQLException("the binary log is off: " + sql + " returned nothing");
        }
        String gtids = rs.getMetaData().getColumnCount() >= 5 ? rs.getString(5) : null;
        return new BinlogPosition(
            rs.getString(1), rs.getLong(2), gtids == null ? null : gtids.replace("\n", ""));
      } catch (SQLException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    throw first;
  }

  /**
   * Publishes the snapshot's rows in windows, in id order.
   *
   * @return how many rows were read, or -1 when the run stopped first
   */
  private long publish(Connection c, RowLayout layout, String where, OutboxChangeConsumer consumer)
      throws SQLException, InterruptedException {
    String sql =
        "SELECT "
            + layout.selectList(SqlDialect.of(source.flavor()))
            + " FROM "
            + source.database()
            + "."
            + source.table()
            + " e WHERE "
            + where
            + "e."
            + source.sequenceColumn()
            + " > ? ORDER BY e."
            + source.sequenceColumn()
            + " LIMIT "
            + WINDOW;
    long after = Long.MIN_VALUE;
    long rows = 0;
    while (true) {
      List<RowLayout.Row> window = new ArrayList<>(WINDOW);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setLong(1, after);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            window.add(layout.readRow(rs));
          }
        }
      }
      if (window.isEmpty()) {
        return rows;
      }
      after = window.get(window.size() - 1).event().id();
      if (!consumer.publishEvents(window)) {
        return -1;
      }
      rows += window.size();
    }
  }

  private long count(Connection c, String where) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM "
                    + source.database()
                    + "."
                    + source.table()
                    + " e"
                    + (where.isEmpty()
                        ? ""
                        : " WHERE " + where.substring(0, where.length() - " AND ".length())));
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Stores {@code at} as the relay's position, in Debezium's MariaDB/MySQL offset form, in one
   * transaction with the check that this relay still leads in its epoch.
   *
   * @return false when the lease is no longer held in this epoch (nothing stored)
   */
  private boolean store(Connection c, BinlogPosition at) throws SQLException {
    String offsets = source.database() + "." + config.cdc().offsetsTable();
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION innodb_lock_wait_timeout = 10");
      try {
        // CREATE TABLE IF NOT EXISTS needs the CREATE grant even when the table is there.
        st.executeQuery("SELECT 1 FROM " + offsets + " LIMIT 0").close();
      } catch (SQLException e) {
        if (!io.outboxrelay.relay.failure.SqlErrors.isNoSuchTable(e)) {
          throw e;
        }
        st.execute(OffsetsDdl.create(offsets));
      }
    }
    c.commit();
    long serverId;
    long now;
    try (PreparedStatement ps = c.prepareStatement("SELECT @@server_id, UNIX_TIMESTAMP()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      serverId = rs.getLong(1);
      now = rs.getLong(2);
    }
    String key = OffsetKey.of(config.name());
    try (PreparedStatement delete =
        c.prepareStatement("DELETE FROM " + offsets + " WHERE offset_key = ?")) {
      delete.setString(1, key);
      delete.executeUpdate();
    }
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + offsets
                + " (id, offset_key, offset_val, record_insert_ts, record_insert_seq)"
                + " VALUES (?, ?, ?, CURRENT_TIMESTAMP, 1)")) {
      insert.setString(1, java.util.UUID.randomUUID().toString());
      insert.setString(2, key);
      insert.setString(3, OffsetsDdl.offsetAt(at.file(), at.pos(), at.gtids(), serverId, now));
      insert.executeUpdate();
    }
    staleHistory =
        ResumePoint.deleteHistory(
            c, source.database() + "." + config.cdc().schemaHistoryTable(), config.name());
    try (PreparedStatement fence =
        c.prepareStatement(
            "UPDATE "
                + config.cdc().leaderTable()
                + " SET renewed_at = NOW(6) WHERE resource = ? AND holder = ? AND epoch = ?")) {
      fence.setString(1, HandoffRecords.resourceOf(source));
      fence.setString(2, holder);
      fence.setLong(3, epoch);
      if (fence.executeUpdate() == 0) {
        c.rollback();
        return false;
      }
    }
    c.commit();
    return true;
  }
}
