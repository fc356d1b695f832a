package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.cdc.HandoffMarker;
import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff --to cdc} (every relay stopped): records that the table is handed to
 * CDC relay {@code relay.name} and replaces every row of that relay's stored position with a {@link
 * HandoffMarker}, in one short transaction that touches neither the outbox table nor any lock the
 * application's statements wait for. The relay's next start is then a first start ({@code
 * FirstStart}): it takes a consistent snapshot of the table with its binlog position, publishes the
 * rows polling left unpublished ({@code PENDING}, due for retry or not, and {@code PROCESSING},
 * leased or not) in id order whatever {@code cdc.first.start} says, and streams from that position;
 * storing that position consumes the marker, so the instruction applies to that start only. Rows
 * polling published are {@code PUBLISHED} and stay behind; {@code DEAD} and {@code SKIPPED} rows
 * stay as they are.
 *
 * <p>Never waits for the application: transactions open on the outbox table commit whenever they
 * do, before the relay's snapshot (their rows are in it) or after (their rows are in the binlog
 * after its position). Everything the relay needs is checked or created first; the session's lock
 * waits and idle transaction are bounded, so a client that dies mid-way leaves nothing locked.
 * Refused when the table is CDC's already. Not thread-safe.
 */
final class HandoffToCdc {

  private static final Logger LOG = LoggerFactory.getLogger(HandoffToCdc.class);

  /** The longest wait of any statement of the hand-off for a lock, in seconds. */
  static final int LOCK_WAIT_SECONDS = 5;

  private final Handoff h;

  HandoffToCdc(Handoff h) {
    this.h = h;
  }

  /**
   * Hands the table from polling to CDC.
   *
   * @throws AdminException when a relay still runs or the table is CDC's already (exit 2), or the
   *     database fails (exit 1)
   */
  void run() throws AdminException {
    h.run(
        c -> {
          handOver(c);
          return null;
        });
  }

  private void handOver(Connection c) throws SQLException, AdminException {
    bound(c, h.dialect);
    java.util.Set<String> columns = h.requirePollingColumns(c);
    RelayPresence.requireNone(c, h.config, "handing the table to CDC");
    ModeOwnership.TableState state = h.state(c, columns);
    Handoff.refuse(ModeOwnership.handoffToCdcProblem(state, h.config.name()));
    h.ensureRecordTable(c);
    ensureOffsetsTable(c);
    long unpublished = count(c, "('PENDING', 'PROCESSING')");
    long dead = count(c, "('DEAD', 'SKIPPED')");
    c.commit();
    String offsets = h.dialect.relayTable(h.source, h.config.cdc().offsetsTable());
    replacePositionWithMarker(c, offsets);
    HandoffRecords.begin(
        c,
        h.source,
        RelayMode.CDC,
        h.config.name(),
        h.operator.name(),
        true,
        "stored position replaced by a hand-off marker: the relay's next start publishes the rows"
            + " polling left unpublished ("
            + unpublished
            + " now) from a consistent snapshot, then streams from "
            + (h.dialect.hasBinlog() ? "its binlog position" : "a new replication slot"));
    c.commit();
    LOG.info(
        "operator {} handed {} from polling to CDC relay {}: {} unpublished rows now; its next"
            + " start publishes them from a consistent snapshot",
        h.operator.name(),
        h.table,
        h.config.name(),
        unpublished);
    h.out.println(
        "handed "
            + h.table
            + " to CDC: relay "
            + h.config.name()
            + " publishes, when it starts, the rows polling had not published ("
            + unpublished
            + " now, and any the application commits until then) in id order from a consistent"
            + " snapshot of the table, then streams from "
            + (h.dialect.hasBinlog()
                ? "the snapshot's binlog position"
                : "the replication slot it makes with that snapshot")
            + "; the application was not held; start the CDC relay now (outbox-relay run)");
    if (dead > 0) {
      h.out.println(
          "note: " + dead + " DEAD or SKIPPED rows stay as they are; CDC does not publish them");
    }
  }

  /**
   * Deletes every row of the relay's key (Debezium keeps the last of several; all go) and stores
   * the hand-off's marker in their place, in the caller's transaction.
   */
  private void replacePositionWithMarker(Connection c, String offsets) throws SQLException {
    OffsetKey.deleteRows(c, offsets, h.config.name());
    String now;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + h.dialect.zonedTimeText(h.dialect.now()))) {
      rs.next();
      now = h.dialect.zonedTime(rs.getString(1)).toString();
    }
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + offsets
                + " (id, offset_key, offset_val, record_insert_ts, record_insert_seq)"
                + " VALUES (?, ?, ?, CURRENT_TIMESTAMP, 1)")) {
      insert.setString(1, java.util.UUID.randomUUID().toString());
      insert.setString(2, OffsetKey.of(h.config.name()));
      insert.setString(3, HandoffMarker.value(now));
      insert.executeUpdate();
    }
  }

  /**
   * Bounds the session: no statement waits long for a lock, and the server ends the session if this
   * client stops inside a transaction.
   */
  static void bound(Connection c, io.outboxrelay.relay.source.SqlDialect dialect)
      throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String bound : dialect.lockWaitBounds(LOCK_WAIT_SECONDS)) {
        s.execute(bound);
      }
      String idle = dialect.idleTransactionTimeout(2 * LOCK_WAIT_SECONDS);
      if (idle != null) {
        s.execute(idle);
      }
    } catch (SQLException e) {
      LOG.debug("session bounds not all set: {}", e.toString());
    }
    if (!c.getAutoCommit()) {
      c.commit(); // PostgreSQL's SET is transactional
    }
  }

  /**
   * Creates the offsets table when it is missing, where the relay stores the position its first
   * start takes; exit 2 when the user may not.
   */
  private void ensureOffsetsTable(Connection c) throws SQLException, AdminException {
    Handoff.ensureOffsetsTable(
        c, h.dialect, h.dialect.relayTable(h.source, h.config.cdc().offsetsTable()));
  }

  private long count(Connection c, String statuses) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM " + h.sqlTable + " WHERE status IN " + statuses);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
