package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.FirstStartAction;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.RowLayout;
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
 * the position is stored publishes the snapshot again (duplicates, never loss). The snapshot's
 * transaction lasts only as long as reading the ids to publish ({@link #run}).
 *
 * <p>{@code cdc.first.start=skip} takes the same snapshot and position and publishes none of its
 * rows, and so does {@code publish} for a relay whose engine streamed before (it has schema
 * history: its position was deleted, and CDC, which sets no status, published its rows then). After
 * {@code handoff --to cdc} for this relay (the hand-off stored a {@link HandoffMarker} as its
 * position), the rows polling left unpublished are published whatever {@code cdc.first.start} says,
 * once: storing the position replaces the marker.
 *
 * <p>MariaDB reports the binlog position of a consistent snapshot exactly ({@link BinlogSnapshot}).
 * MySQL does not: the position is read a second before the snapshot opens, so a transaction that
 * commits in between is both in the snapshot and after the position, and is published twice. Not
 * thread-safe: one per run.
 */
final class FirstStart {

  private static final Logger LOG = LoggerFactory.getLogger(FirstStart.class);

  /** Rows read from the snapshot, and published, per window. */
  static final int WINDOW = 1000;

  /**
   * MySQL: the pause between reading the binlog position and opening the snapshot, for a
   * transaction written to the binlog but not yet committed to become visible.
   */
  static final long MYSQL_COMMIT_PAUSE_MILLIS = 1000;

  /** Statuses of rows there is nothing to publish for. */
  private static final String DONE = "('PUBLISHED', 'DEAD', 'SKIPPED')";

  private final RelayConfig config;
  private final SourceConfig source;
  private final SqlDialect dialect;
  private final String holder;
  private final long epoch;
  private final ExactlyOnce exactlyOnce; // null: at-least-once
  private int staleHistory; // schema history records of an earlier run, deleted with the store

  /**
   * @param exactlyOnce the term's transactions with {@code delivery.guarantee=exactly-once}: the
   *     position is committed to the progress topic before the database stores it; else null
   */
  FirstStart(RelayConfig config, String holder, long epoch, ExactlyOnce exactlyOnce) {
    this.exactlyOnce = exactlyOnce;
    this.config = config;
    this.source = config.source();
    this.dialect = SqlDialect.of(source.flavor());
    this.holder = holder;
    this.epoch = epoch;
  }

  /**
   * Whether a run must start with this: the relay stored a {@link HandoffMarker} ({@code handoff
   * --to cdc}; the engine must never start on it), or it has no stored position and the engine
   * would otherwise start at the current binlog position ({@code snapshot.mode=no_data}, the
   * relay's default; an operator's {@code debezium.snapshot.mode} is left to Debezium).
   *
   * @param config the relay configuration
   * @param properties the engine's properties
   * @return whether to run the first start
   * @throws SQLException when the stored position cannot be read
   */
  static boolean needed(RelayConfig config, Properties properties) throws SQLException {
    Optional<ResumePoint> stored = ResumePoint.read(config.source(), config.cdc(), config.name());
    if (stored.isPresent()) {
      return stored.get().handoffPending();
    }
    return "no_data".equals(properties.getProperty("snapshot.mode"));
  }

  /**
   * Publishes what the snapshot holds (or counts it, to skip) and stores its position.
   *
   * <p>The snapshot's transaction reads only the ids to publish and ends at once: held open for the
   * whole publish (Kafka waits, outages) its shared metadata lock would make an {@code ALTER TABLE}
   * wait, and every application insert queue behind that, and its read view would hold back purge.
   * The rows are then read by id, in windows, at {@code READ COMMITTED}: outbox rows do not change
   * once committed, and retention cannot delete them before a position is stored.
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
    try (Connection c = TermConnections.open(config)) {
      bound(c);
      c.setAutoCommit(false);
      Optional<ResumePoint> stored = ResumePoint.read(source, config.cdc(), config.name());
      boolean handedOver = stored.isPresent() && stored.get().handoffPending();
      // A relay whose schema history knows this table streamed it: its rows were published then
      // (CDC sets no status), and its position was deleted since. Publishing them again would
      // flood the topics with duplicates.
      boolean streamedBefore =
          !handedOver && ResumePoint.streamedTableBefore(source, config.cdc(), config.name());
      Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
      c.commit();
      boolean publish =
          handedOver || (config.cdc().firstStart() == FirstStartAction.PUBLISH && !streamedBefore);
      String where =
          OutboxColumns.has(columns, "status") ? "e.status NOT IN " + DONE + " AND " : "";
      long snapshotTime = unixTime(c); // the position's time, read before the snapshot
      c.commit();
      BinlogPosition at = snapshot(c);
      // Without the sequence column (Debezium's outbox table has none) the rows have no order to
      // publish them in, and per-aggregate order is the promise: only an empty table can go on.
      boolean ordered = OutboxColumns.has(columns, source.sequenceColumn());
      Ids ids = publish && ordered ? ids(c, where) : null;
      long rows = ids != null ? ids.size : count(c, where);
      c.rollback(); // ends the snapshot, before anything waits for Kafka
      if (publish && !ordered && rows > 0) {
        throw new StartupCheckException(
            List.of(
                "the first start of relay.name '"
                    + config.name()
                    + "' cannot publish the "
                    + rows
                    + " rows already in "
                    + table
                    + " in order: the table has no column "
                    + source.sequenceColumn()
                    + " (source.column.sequence) to order them by; add one (an AUTO_INCREMENT"
                    + " column with a unique key, e.g. config/mysql/debezium-outbox-polling.sql),"
                    + " or set cdc.first.start=skip if they were published elsewhere"));
      }
      if (publish && !ordered) {
        ids = new Ids(); // an empty table: nothing to order
      }
      c.setAutoCommit(true);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      long vanished = 0;
      if (publish && ids.size > 0) {
        RowLayout layout = RowLayout.forSnapshot(source, columns);
        dryRun(c, layout, ids, consumer);
        vanished = publish(c, layout, ids, consumer);
        if (vanished < 0) {
          return false;
        }
      }
      c.setAutoCommit(false);
      if (!store(c, at, snapshotTime)) {
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
              ? " that polling left unpublished ('handoff --to cdc' pending since "
                  + stored.get().handoffTime()
                  + ", now done)"
              : streamedBefore
                  ? " already in the table (relay.name '"
                      + config.name()
                      + "' streamed this table before: its schema history in "
                      + config.cdc().schemaHistoryTable()
                      + " knows it, so they are taken as published; cdc.first.start=publish applies to a"
                      + " relay that never streamed)"
                  : " already in the table (cdc.first.start="
                      + config.cdc().firstStart().name().toLowerCase(java.util.Locale.ROOT)
                      + ")";
      LOG.info(
          "[{}] first start of relay.name '{}': {} {} rows of {}{}, read from a consistent"
              + " snapshot at binlog position {}{}; streaming from there",
          context,
          config.name(),
          publish ? "published" : "skipped",
          rows - vanished,
          table,
          why,
          at,
          vanished > 0 ? " (" + vanished + " rows of the snapshot were gone when read)" : "");
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

  /**
   * Bounds the session as the position store's is: no lock wait is long, and a process frozen
   * inside {@link #store}'s transaction (after the fenced lease update) cannot hold the lease row.
   */
  private void bound(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION innodb_lock_wait_timeout = 10");
    }
    io.outboxrelay.relay.source.IdleTransactionBound.apply(c, dialect, config.cdc().leaderLease());
  }

  /** The ids of the snapshot's rows to publish, in order; 8 bytes each. */
  static final class Ids {
    long[] values = new long[1024];
    int size;

    void add(long id) {
      if (size == values.length) {
        values = java.util.Arrays.copyOf(values, values.length * 2);
      }
      values[size++] = id;
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
  private BinlogPosition snapshot(Connection c) throws SQLException, InterruptedException {
    if (dialect.snapshotsAtBinlogPosition()) {
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
    // both, and published twice, never left out. A transaction already in the binlog before the
    // position but not yet committed in the engine would be in neither: the pause lets it commit
    // before the snapshot opens (published twice, never left out).
    BinlogPosition before = mysqlStatus(c);
    c.commit();
    Thread.sleep(MYSQL_COMMIT_PAUSE_MILLIS);
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

  /** Reads the ids to publish from the snapshot, in id order. */
  Ids ids(Connection c, String where) throws SQLException {
    Ids ids = new Ids();
    String seq = "e." + source.sequenceColumn();
    try (Statement st = c.createStatement()) {
      st.setFetchSize(WINDOW);
      try (ResultSet rs =
          st.executeQuery(
              "SELECT "
                  + seq
                  + " FROM "
                  + dialect.qualifiedTable(source)
                  + " e"
                  + (where.isEmpty()
                      ? ""
                      : " WHERE " + where.substring(0, where.length() - " AND ".length()))
                  + " ORDER BY "
                  + seq)) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    return ids;
  }

  /** Reads the rows of {@code ids[from, to)} (auto-commit, {@code READ COMMITTED}). */
  private List<RowLayout.Row> window(Connection c, RowLayout layout, Ids ids, int from, int to)
      throws SQLException {
    String sql =
        "SELECT "
            + layout.selectList()
            + " FROM "
            + dialect.qualifiedTable(source)
            + " e WHERE "
            + dialect.in("e." + source.sequenceColumn(), to - from)
            + " ORDER BY e."
            + source.sequenceColumn();
    List<RowLayout.Row> window = new ArrayList<>(to - from);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      List<Long> values = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        values.add(ids.values[i]);
      }
      dialect.bindIds(c, ps, 1, values);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          window.add(layout.readRow(rs));
        }
      }
    }
    return window;
  }

  /**
   * With {@code cdc.poison.action=fail}, checks every row before the first is sent: a poison event
   * found part-way would stop the start after its earlier rows were sent, and each restart would
   * send them again.
   */
  void dryRun(Connection c, RowLayout layout, Ids ids, OutboxChangeConsumer consumer)
      throws SQLException {
    if (config.cdc().poisonAction() != io.outboxrelay.relay.config.PoisonAction.FAIL) {
      return;
    }
    for (int from = 0; from < ids.size; from += WINDOW) {
      String refused =
          consumer.firstUnpublishable(
              window(c, layout, ids, from, Math.min(ids.size, from + WINDOW)));
      if (refused != null) {
        throw new RelayFailure(
            "the first start of relay.name '"
                + config.name()
                + "' cannot publish "
                + refused
                + ". Nothing was sent and nothing stored (cdc.poison.action=fail): the next start"
                + " checks the rows again",
            null);
      }
    }
  }

  /**
   * Publishes the snapshot's rows in windows, in id order.
   *
   * @return how many ids were gone when read, or -1 when the run stopped first
   */
  long publish(Connection c, RowLayout layout, Ids ids, OutboxChangeConsumer consumer)
      throws SQLException, InterruptedException {
    long vanished = 0;
    for (int from = 0; from < ids.size; from += WINDOW) {
      int to = Math.min(ids.size, from + WINDOW);
      List<RowLayout.Row> window = window(c, layout, ids, from, to);
      vanished += (to - from) - window.size();
      if (!window.isEmpty() && !consumer.publishEvents(window)) {
        return -1;
      }
    }
    return vanished;
  }

  long count(Connection c, String where) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM "
                    + dialect.qualifiedTable(source)
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
  private boolean store(Connection c, BinlogPosition at, long snapshotTime)
      throws SQLException, InterruptedException {
    String position = offsetOf(c, at, snapshotTime);
    c.commit(); // no transaction stays open while Kafka is waited for
    if (exactlyOnce != null && !exactlyOnce.commitPosition(position)) {
      return false; // the run stopped, or Kafka fenced it: the next term starts again
    }
    replacePosition(c, config, position);
    staleHistory =
        ResumePoint.deleteHistory(
            c, source.database() + "." + config.cdc().schemaHistoryTable(), config.name());
    if (!fence(c, config, holder, epoch)) {
      c.rollback();
      return false;
    }
    c.commit();
    return true;
  }

  /** The database's clock, in whole seconds (rounded down). */
  private static long unixTime(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT FLOOR(UNIX_TIMESTAMP())");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The snapshot's position in Debezium's offset form, stamped ({@code ts_sec}) with the database's
   * time before the snapshot opened, not when the position is stored: publishing the snapshot's
   * rows may take minutes, and the rows committed meanwhile lie after the position, unpublished.
   * When the binlog from the position is purged before a later position is stored, {@code handoff
   * --to polling} marks {@code PUBLISHED} the rows created before this time less {@code
   * --open-transactions}; stamped at the store, that would take in every row created in those
   * minutes.
   */
  private static String offsetOf(Connection c, BinlogPosition at, long snapshotTime)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT @@server_id");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return OffsetsDdl.offsetAt(at.file(), at.pos(), at.gtids(), rs.getLong(1), snapshotTime);
    }
  }

  /**
   * Replaces the relay's rows of the offsets table (its position, or a hand-off's marker) with
   * {@code position}, creating the table when missing, in the caller's transaction. The rows are
   * deleted by primary key at {@code READ COMMITTED}, so no gap lock on the shared table can
   * deadlock with a sibling relay's commit of its own position.
   *
   * @param c a connection with auto-commit off
   * @param config the relay's configuration
   * @param position the offset JSON
   * @throws SQLException when the database fails
   */
  static void replacePosition(Connection c, RelayConfig config, String position)
      throws SQLException {
    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    boolean binlog = SqlDialect.of(config.source().flavor()).hasBinlog();
    String offsets =
        binlog
            ? config.source().database() + "." + config.cdc().offsetsTable()
            : config.cdc().offsetsTable(); // PostgreSQL: through the search path
    try (Statement st = c.createStatement()) {
      try {
        // CREATE TABLE IF NOT EXISTS needs the CREATE grant even when the table is there.
        st.executeQuery("SELECT 1 FROM " + offsets + " LIMIT 0").close();
      } catch (SQLException e) {
        if (!io.outboxrelay.relay.failure.SqlErrors.isNoSuchTable(e)
            && !io.outboxrelay.relay.failure.SqlErrors.isUndefinedTable(e)) {
          throw e;
        }
        c.rollback(); // PostgreSQL: the failed statement aborted the transaction
        st.execute(OffsetsDdl.create(offsets));
      }
    }
    c.commit();
    OffsetKey.deleteRows(c, offsets, config.name());
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + offsets
                + " (id, offset_key, offset_val, record_insert_ts, record_insert_seq)"
                + " VALUES (?, ?, ?, CURRENT_TIMESTAMP, 1)")) {
      insert.setString(1, java.util.UUID.randomUUID().toString());
      insert.setString(2, OffsetKey.of(config.name()));
      insert.setString(3, position);
      insert.executeUpdate();
    }
  }

  /**
   * In the caller's transaction, checks that {@code holder} still leads in {@code epoch} (and
   * renews the lease): what the transaction stored is then the leader's.
   *
   * @return false when the lease is no longer held in this epoch: roll back
   * @throws SQLException when the database fails
   */
  static boolean fence(Connection c, RelayConfig config, String holder, long epoch)
      throws SQLException {
    try (PreparedStatement fence =
        c.prepareStatement(
            "UPDATE "
                + config.cdc().leaderTable()
                + " SET renewed_at = "
                + SqlDialect.of(config.source().flavor()).now()
                + " WHERE resource = ? AND holder = ? AND epoch = ?")) {
      fence.setString(1, HandoffRecords.resourceOf(config.source()));
      fence.setString(2, holder);
      fence.setLong(3, epoch);
      return fence.executeUpdate() > 0;
    }
  }
}
