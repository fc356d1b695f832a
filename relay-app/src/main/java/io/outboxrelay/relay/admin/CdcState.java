package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A CDC relay's stored position next to the server's binlog, read in one go. Immutable.
 *
 * @param stored the stored position, if the relay has committed one
 * @param current the server's current position
 * @param files the binlog files the server has, oldest first
 * @param serverId the source's {@code server_id}
 * @param now the database's clock
 * @param leadership who publishes the table; {@code null} when read for a change (under lock)
 * @param handoffPending whether {@code handoff --to cdc} stored its marker instead of a position
 *     ({@code stored} is then empty): the next start publishes the rows polling left unpublished
 */
record CdcState(
    Optional<OffsetsRow> stored,
    BinlogServer.Position current,
    List<BinlogServer.BinlogFile> files,
    long serverId,
    Instant now,
    Leadership leadership,
    boolean handoffPending) {

  static CdcState read(Connection c, RelayConfig config, boolean lock) throws SQLException {
    return read(
        c, config, lock, OffsetsRow.read(c, config.cdc().offsetsTable(), config.name(), lock));
  }

  /**
   * The state of a relay whose offsets table does not exist yet (it never started): no stored
   * position.
   */
  static CdcState readWithoutOffsetsTable(Connection c, RelayConfig config) throws SQLException {
    return read(c, config, false, Optional.empty());
  }

  private static CdcState read(
      Connection c, RelayConfig config, boolean lock, Optional<OffsetsRow> stored)
      throws SQLException {
    boolean handoffPending =
        stored.isPresent()
            && io.outboxrelay.relay.source.cdc.HandoffMarker.is(stored.get().offset());
    if (handoffPending) {
      stored = Optional.empty();
    }
    BinlogServer.Position current =
        BinlogServer.current(c, SqlDialect.of(config.source().flavor()));
    List<BinlogServer.BinlogFile> files = BinlogServer.files(c);
    long serverId;
    Instant now;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@server_id, CURRENT_TIMESTAMP(6)")) {
      rs.next();
      serverId = rs.getLong(1);
      now = rs.getTimestamp(2).toInstant();
    }
    Leadership leadership = lock ? null : Leadership.read(c, config);
    return new CdcState(stored, current, files, serverId, now, leadership, handoffPending);
  }

  /** Whether the stored position's binlog file is gone from the server. */
  boolean purged() {
    return stored.isPresent()
        && stored.get().file() != null
        && !stored.get().file().isEmpty()
        && BinlogServer.indexOf(files, stored.get().file()) < 0;
  }

  /** Binlog bytes from the stored position to the current one, or -1 when unknown. */
  long behindBytes() {
    return stored.isEmpty() || stored.get().file() == null
        ? -1
        : BinlogServer.bytesBetween(files, stored.get().position(), current);
  }

  /** The oldest binlog file the server has, or null. */
  String earliestFile() {
    return files.isEmpty() ? null : files.get(0).name();
  }
}
