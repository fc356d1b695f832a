package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalDouble;

/**
 * {@code outbox_relay_oldest_unpublished_age_seconds} of a CDC relay on PostgreSQL, leader and
 * standby alike, from the committed position (what Kafka acknowledged and the relay stored) by the
 * database clock: 0 when the server has written nothing past it, else the age of its last event
 * ({@code ts_usec}). Heartbeats move the position while the outbox is quiet, so there it stays
 * below about {@code cdc.heartbeat.interval} plus {@code cdc.commit.interval}; with Kafka down, or
 * the reader behind, or no leader publishing, it grows. (Debezium's {@code
 * MilliSecondsBehindSource}, MariaDB's measure, is not used: on PostgreSQL the heartbeat messages
 * carry the last transaction's commit time, so it grows on a quiet outbox.) Stateless.
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
}
