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
 * database clock: 0 when the server has written nothing past it; else, for an event's position, the
 * age of that event ({@code ts_usec}), and for a heartbeat's position (the position moves to each
 * heartbeat message while the outbox is quiet), the time since it was committed ({@code
 * record_insert_ts}, the relay's clock): a heartbeat message carries the last transaction's commit
 * time, not its own. On a quiet outbox it stays below about {@code cdc.heartbeat.interval} plus
 * {@code cdc.commit.interval}; with Kafka down, the reader behind, or no leader publishing, it
 * grows. (Debezium's {@code MilliSecondsBehindSource}, MariaDB's measure, grows on a quiet outbox
 * for the same reason, and is not used.) Stateless.
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
    Stored stored = storedOffset(c, relayName, offsetsTable);
    if (stored == null) {
      return OptionalDouble.empty();
    }
    JsonNode offset;
    try {
      offset = JSON.readTree(stored.value());
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
        if (behind <= 0) {
          return OptionalDouble.of(0);
        }
        if ("MESSAGE".equals(offset.path("messageType").asText()) && stored.committedAt() != null) {
          // A heartbeat's position: everything before it was published; what waits comes after
          // it, so the position's age is the time since it was committed (the relay's clock).
          return OptionalDouble.of(
              Math.max(0, System.currentTimeMillis() - stored.committedAt().toEpochMilli()) / 1e3);
        }
        long eventMicros = offset.path("ts_usec").asLong(0);
        return OptionalDouble.of(eventMicros == 0 ? 0 : Math.max(0, nowMicros - eventMicros) / 1e6);
      }
    }
  }

  /** The stored {@code offset_val} and its {@code record_insert_ts}. */
  private record Stored(String value, java.time.Instant committedAt) {}

  private static Stored storedOffset(Connection c, String relayName, String offsetsTable)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, offsetsTable);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return null;
        }
      }
    }
    Stored found = null;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT offset_key, offset_val, record_insert_ts FROM "
                    + offsetsTable
                    + " ORDER BY record_insert_ts, record_insert_seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (io.outboxrelay.relay.source.cdc.leader.OffsetKey.belongsTo(
            rs.getString(1), relayName)) {
          java.sql.Timestamp ts = rs.getTimestamp(3);
          found = new Stored(rs.getString(2), ts == null ? null : ts.toInstant());
        }
      }
    }
    return found;
  }
}
