package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.source.SqlDialect;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalDouble;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * How far a CDC relay on PostgreSQL is behind the server, in seconds: {@code
 * outbox_relay_oldest_unpublished_age_seconds}, measured as on MariaDB.
 *
 * <p>On the leader: 0 when its walsender has sent everything the server has written ({@code
 * pg_stat_replication.sent_lsn} at {@code pg_current_wal_lsn()}), else Debezium's {@code
 * MilliSecondsBehindSource}, the time from the commit of the last event read to its reading. On a
 * standby, or a leader whose reader is reconnecting: from the committed position, 0 when nothing
 * was written past it, else the age of its last event ({@code ts_usec}) by the database clock; this
 * includes what the leader published after its last commit (at most {@code cdc.commit.interval} of
 * events) and, on a quiet outbox, up to a heartbeat interval. Stateless.
 */
final class SlotReaderLag {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SlotReaderLag() {}

  /**
   * The lag, or empty when it cannot be told (no reader and no committed position yet).
   *
   * @param c a connection as the relay's user
   * @param relayName {@code relay.name}
   * @param offsetsTable {@code cdc.offsets.table}
   * @return the lag in seconds
   * @throws SQLException when the database fails
   */
  static OptionalDouble seconds(Connection c, String relayName, String offsetsTable)
      throws SQLException {
    String slot = PostgresReplication.slotName(relayName);
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (pg_current_wal_lsn() - r.sent_lsn)::bigint FROM pg_replication_slots s JOIN"
                + " pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        Long millisBehind = millisBehindSource(relayName);
        if (rs.next() && millisBehind != null) {
          long behind = rs.getLong(1);
          if (!rs.wasNull()) {
            return OptionalDouble.of(behind <= 0 ? 0 : Math.max(0, millisBehind) / 1e3);
          }
        }
      }
    }
    return fromCommittedPosition(c, relayName, offsetsTable);
  }

  private static OptionalDouble fromCommittedPosition(
      Connection c, String relayName, String offsetsTable) throws SQLException {
    String stored = storedOffset(c, relayName, offsetsTable);
    if (stored == null) {
      return OptionalDouble.empty();
    }
    JsonNode offset;
    try {
      offset = JSON.readTree(stored);
    } catch (java.io.IOException e) {
      return OptionalDouble.empty();
    }
    if (!offset.path("lsn").canConvertToLong()) {
      return OptionalDouble.empty(); // a first start's marker
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (pg_current_wal_lsn() - ('0/0'::pg_lsn + ?::numeric))::bigint,"
                + " EXTRACT(EPOCH FROM clock_timestamp()) * 1000000")) {
      ps.setLong(1, offset.path("lsn").asLong());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long behind = rs.getLong(1);
        long nowMicros = rs.getLong(2);
        long eventMicros = offset.path("ts_usec").asLong(0);
        return OptionalDouble.of(
            behind <= 0 || eventMicros == 0 ? 0 : Math.max(0, nowMicros - eventMicros) / 1e6);
      }
    }
  }

  private static String storedOffset(Connection c, String relayName, String offsetsTable)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, offsetsTable);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return null;
        }
      }
    }
    String found = null;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT offset_key, offset_val FROM "
                    + offsetsTable
                    + " ORDER BY record_insert_ts, record_insert_seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (io.outboxrelay.relay.source.cdc.leader.OffsetKey.belongsTo(
            rs.getString(1), relayName)) {
          found = rs.getString(2);
        }
      }
    }
    return found;
  }

  /** Debezium's streaming {@code MilliSecondsBehindSource} of this relay's engine, or null. */
  private static Long millisBehindSource(String relayName) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      for (ObjectName name :
          server.queryNames(
              new ObjectName(
                  "debezium."
                      + SqlDialect.of(SourceFlavor.POSTGRESQL).connectorType()
                      + ":type=connector-metrics,context=streaming,server="
                      + relayName
                      + ",*"),
              null)) {
        Object v = server.getAttribute(name, "MilliSecondsBehindSource");
        return v instanceof Number n ? n.longValue() : 0L;
      }
    } catch (Exception e) {
      // not registered (yet)
    }
    return null;
  }
}
