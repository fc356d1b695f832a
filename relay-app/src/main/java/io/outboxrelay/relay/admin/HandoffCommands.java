package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.BinlogSnapshot;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff --to polling | --to cdc}: moves an outbox table from one mode to the
 * other with every event published once, while the application keeps writing. MariaDB only.
 *
 * <p><b>To polling</b> (every relay stopped): the CDC relay published exactly the rows committed
 * before its committed position. A consistent snapshot ({@link BinlogSnapshot}) sees the rows
 * committed before its own binlog position; of those, the ones inserted in the binlog between the
 * committed position and the snapshot's ({@link BinlogInserts}) were not published, all others
 * were. Those are marked {@code PUBLISHED}; the rest, and every row committed after the snapshot,
 * stay {@code PENDING} for polling. When the binlog from the committed position is gone (purged) or
 * holds statement-based changes of the table, the rows cannot be told apart by position: rows
 * created before the committed position's last event, less a margin for transactions open then, are
 * marked, and the others published again by polling (consumers deduplicate on the event id).
 *
 * <p><b>To CDC</b> (every relay stopped): in one REPEATABLE READ transaction, the unpublished rows
 * ({@code PENDING}, due for retry or not, and {@code PROCESSING}, leased or not) are read {@code
 * FOR UPDATE}, which also holds back the application's new outbox rows until the commit (the
 * next-key locks of the read); the binlog position is read; and the rows are deleted and inserted
 * again, in id order, unchanged but for their claim, with the CDC relay's stored position set to
 * that binlog position. CDC then publishes exactly the re-inserted rows, in id order, and then
 * whatever the application commits later; rows polling published stay behind the position. {@code
 * DEAD} and {@code SKIPPED} rows stay as they are.
 *
 * <p>Both refuse, changing nothing, while a relay of the table may still run ({@link
 * RelayPresence}). Not thread-safe; one instance per command.
 */
public final class HandoffCommands {

  private static final Logger LOG = LoggerFactory.getLogger(HandoffCommands.class);

  private static final String NEEDS =
      "handoff needs, for source.user: SELECT, INSERT, UPDATE, DELETE on the outbox table, SELECT,"
          + " INSERT, DELETE on the offsets table, SELECT on the schema history and lease tables,"
          + " REPLICATION SLAVE and BINLOG MONITOR (see config/mysql/relay-grants.sql)";

  /** Rows read or changed per statement. */
  static final int BATCH = 1000;

  private final RelayConfig config;
  private final SourceConfig source;
  private final PrintWriter out;
  private final Operator operator;
  private final String table;

  /**
   * Commands over the hand-off between modes.
   *
   * @param config the relay's configuration, with its CDC settings ({@code --mode cdc})
   * @param out where the answer goes
   * @param operator who runs the command
   * @throws AdminException (exit 2) when the configuration has no CDC settings or the source is not
   *     MariaDB
   */
  public HandoffCommands(RelayConfig config, PrintWriter out, Operator operator)
      throws AdminException {
    if (config.cdc() == null) {
      throw AdminException.usage(
          "handoff needs the CDC settings (offsets, schema history and lease tables): run it with"
              + " the CDC relay's configuration, or add --mode cdc");
    }
    if (config.source().flavor() != SourceFlavor.MARIADB) {
      throw AdminException.usage(
          "handoff needs MariaDB: it takes a consistent snapshot with its binlog position"
              + " (binlog_snapshot_file/binlog_snapshot_position), which "
              + config.source().flavor().name().toLowerCase(Locale.ROOT)
              + " does not offer; nothing was changed");
    }
    this.config = config;
    this.source = config.source();
    this.out = out;
    this.operator = operator;
    this.table = source.database() + "." + source.table();
  }

  /**
   * Hands the table from CDC to polling.
   *
   * @param openTransactions how long a transaction may stay open, for the fallback without binlog
   * @throws AdminException when a relay still runs (exit 2), or the database fails (exit 1)
   */
  public void toPolling(Duration openTransactions) throws AdminException {
    run(c -> toPolling(c, openTransactions));
  }

  /**
   * Hands the table from polling to CDC.
   *
   * @throws AdminException when a relay still runs (exit 2), or the database fails (exit 1)
   */
  public void toCdc() throws AdminException {
    run(
        c -> {
          for (int attempt = 1; ; attempt++) {
            try {
              toCdc(c);
              return;
            } catch (SQLException e) {
              // An application transaction that inserted a row before the read and another after
              // it waits for the read while the read waits for it: InnoDB ends one of the two.
              if (attempt == 3 || !SqlErrors.isDeadlock(e)) {
                throw e;
              }
              c.rollback();
              LOG.info("the hand-off met a deadlock with an application transaction; again");
            }
          }
        });
  }

  private interface Work {
    void run(Connection c) throws SQLException, AdminException;
  }

  private void run(Work work) throws AdminException {
    Connections.run(
        source,
        "the hand-off of " + table,
        NEEDS,
        c -> {
          work.run(c);
          return null;
        });
    out.flush();
  }

  private void toPolling(Connection c, Duration openTransactions)
      throws SQLException, AdminException {
    // The binlog's row images list the columns in table order.
    int idColumn = new ArrayList<>(requirePollingColumns(c)).indexOf("id");
    RelayPresence.requireNone(c, config, "handing the table to polling");
    Optional<StoredPosition> stored =
        StoredPosition.read(c, config.cdc().offsetsTable(), config.name(), false);
    List<BinlogServer.BinlogFile> files = BinlogServer.files(c);
    c.commit();
    if (stored.isEmpty() || stored.get().file() == null) {
      out.println(
          "relay "
              + config.name()
              + " has no committed CDC position in "
              + config.cdc().offsetsTable()
              + ": CDC published nothing, every row stays as it is; start polling");
      return;
    }
    StoredPosition from = stored.get();
    BinlogSnapshot.Position snapshot = BinlogSnapshot.begin(c);
    Instant cutoff =
        from.eventTime() == null ? Instant.EPOCH : from.eventTime().minus(openTransactions);
    String fallback = null;
    Set<Long> unpublished = Set.of();
    if (BinlogServer.indexOf(files, from.file()) < 0) {
      fallback = "binlog file " + from.file() + " was purged";
    } else {
      try {
        BinlogInserts.Result r =
            new BinlogInserts(
                    source,
                    idColumn,
                    "true"
                        .equalsIgnoreCase(
                            config
                                .cdc()
                                .debeziumOverrides()
                                .getOrDefault("include.query", "false")))
                .read(from, snapshot);
        if (r.readable()) {
          unpublished = r.ids();
        } else {
          fallback = r.statement();
        }
      } catch (IOException e) {
        throw AdminException.failure(
            "reading the binlog from "
                + from.position()
                + " failed, nothing was changed: "
                + Connections.oneLine(e)
                + ". Try again",
            e);
      }
    }
    // The snapshot stays open on c while its rows are read in windows; the marks go through a
    // second connection, a short transaction per batch.
    long seen = 0;
    long marked = 0;
    try (Connection w = Connections.open(source)) {
      long after = 0;
      while (true) {
        List<long[]> window = pendingRows(c, cutoff, after);
        if (window.isEmpty()) {
          break;
        }
        seen += window.size();
        after = window.get(window.size() - 1)[0];
        List<Long> mark = new ArrayList<>();
        for (long[] row : window) {
          if (fallback == null ? !unpublished.contains(row[0]) : row[1] == 1) {
            mark.add(row[0]);
          }
        }
        for (int i = 0; i < mark.size(); i += BATCH) {
          marked += markPublished(w, mark.subList(i, Math.min(mark.size(), i + BATCH)));
        }
      }
    }
    c.commit();
    long pending = seen - marked;
    LOG.info(
        "operator {} handed {} from CDC relay {} to polling: {} rows marked PUBLISHED, {} left"
            + " PENDING (CDC position {} after {} events and {} rows, snapshot {}{})",
        operator.name(),
        table,
        config.name(),
        marked,
        pending,
        from.position(),
        from.eventsToSkip(),
        from.rowsToSkip(),
        snapshot,
        fallback == null ? "" : ", by creation time: " + fallback);
    if (fallback != null) {
      out.println(
          "warning: "
              + fallback
              + ", so the rows CDC published cannot be told apart by position: rows created"
              + " before "
              + cutoff
              + " (the committed position's last event, less --open-transactions "
              + openTransactions
              + ") are marked PUBLISHED; later ones are published by polling, some of them a"
              + " second time (consumers deduplicate on the event id)");
    }
    out.println(
        "handed "
            + table
            + " to polling: "
            + marked
            + " rows CDC published (committed before "
            + from.position()
            + ") are PUBLISHED, "
            + pending
            + " rows it did not publish are PENDING, with every row committed since; start the"
            + " polling relays now (outbox-relay run --mode polling)");
  }

  private void toCdc(Connection c) throws SQLException, AdminException {
    requirePollingColumns(c);
    RelayPresence.requireNone(c, config, "handing the table to CDC");
    requireSchemaHistory(c);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    long started = System.nanoTime();
    RowCopy rows = RowCopy.lockUnpublished(c, table);
    BinlogServer.Position at = BinlogServer.current(c, SourceFlavor.MARIADB);
    rows.reinsert(c, table, BATCH);
    long dead = countDeadOrSkipped(c);
    StoredPosition.write(
        c,
        config.cdc().offsetsTable(),
        config.name(),
        StoredPosition.read(c, config.cdc().offsetsTable(), config.name(), true),
        at,
        serverId(c),
        StoredPosition.databaseNow(c));
    c.commit();
    long heldMillis = (System.nanoTime() - started) / 1_000_000;
    LOG.info(
        "operator {} handed {} from polling to CDC relay {}: {} unpublished rows inserted again"
            + " after binlog position {}, where the relay now starts",
        operator.name(),
        table,
        config.name(),
        rows.size(),
        at);
    out.println(
        "handed "
            + table
            + " to CDC: relay "
            + config.name()
            + " starts at "
            + at
            + "; the "
            + rows.size()
            + " rows polling had not published were inserted again after it, in id order, and are"
            + " published first (new outbox rows waited "
            + heldMillis
            + " ms for this); start the CDC relay now (outbox-relay run)");
    if (dead > 0) {
      out.println(
          "note: " + dead + " DEAD or SKIPPED rows stay as they are; CDC does not publish them");
    }
  }

  /**
   * The next window of rows {@code PENDING} in the open snapshot, after id {@code after}: {@code
   * [id, created before cutoff ? 1 : 0]}.
   */
  private List<long[]> pendingRows(Connection c, Instant cutoff, long after) throws SQLException {
    List<long[]> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id, created_at < FROM_UNIXTIME(?) FROM "
                + table
                + " WHERE status = 'PENDING' AND id > ? ORDER BY id LIMIT "
                + BATCH * 10)) {
      ps.setLong(1, cutoff.getEpochSecond());
      ps.setLong(2, after);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new long[] {rs.getLong(1), rs.getBoolean(2) ? 1 : 0});
        }
      }
    }
    return rows;
  }

  private int markPublished(Connection c, List<Long> ids) throws SQLException {
    int n =
        SqlDialect.MYSQL.executeForIds(
            c,
            "UPDATE "
                + table
                + " SET status = 'PUBLISHED', published_at = NOW(6) WHERE status = 'PENDING' AND ",
            ids);
    c.commit();
    return n;
  }

  /**
   * Refuses a table without polling's columns.
   *
   * @return the table's columns, in table order
   */
  private Set<String> requirePollingColumns(Connection c) throws SQLException, AdminException {
    Set<String> columns = OutboxColumns.read(c, source).keySet();
    c.rollback();
    List<String> missing = new ArrayList<>(List.of("id", "status", "published_at", "created_at"));
    missing.removeAll(columns);
    if (!missing.isEmpty()) {
      throw AdminException.usage(
          table
              + " has no column "
              + String.join(", ", missing)
              + ": polling mode needs its columns and indexes (config/mysql/outbox-schema.sql)"
              + " before a hand-off; nothing was changed");
    }
    return columns;
  }

  private void requireSchemaHistory(Connection c) throws SQLException, AdminException {
    long records;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*) FROM "
                + config.cdc().schemaHistoryTable()
                + " WHERE history_data LIKE ? OR history_data LIKE ?")) {
      ps.setString(1, "%\"server\":\"" + config.name() + "\"%");
      ps.setString(2, "%\"server\" : \"" + config.name() + "\"%");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        records = rs.getLong(1);
      }
    } catch (SQLException e) {
      if (!SqlErrors.isNoSuchTable(e)) {
        throw e;
      }
      records = 0;
    }
    c.rollback();
    if (records == 0) {
      throw AdminException.usage(
          "CDC relay "
              + config.name()
              + " has no schema history in "
              + config.cdc().schemaHistoryTable()
              + " (it never ran on this database), and it needs one to start from a stored"
              + " position: start it once in CDC mode before the polling relays take over, or use"
              + " a relay.name that has run; nothing was changed");
    }
  }

  private long countDeadOrSkipped(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM " + table + " WHERE status IN ('DEAD', 'SKIPPED')");
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
