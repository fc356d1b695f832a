package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.outboxrelay.relay.source.cdc.OffsetsDdl;
import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A CDC relay's binlog position as Debezium's {@code JdbcOffsetBackingStore} keeps it: one row per
 * offset key in the offsets table ({@code id}, {@code offset_key}, {@code offset_val}, {@code
 * record_insert_ts}, {@code record_insert_seq}). The relay replaces its own key's rows on each
 * commit (a DELETE of them, then an INSERT) in one transaction, stamping {@code record_insert_ts}
 * with the relay's clock, and leaves the rows of other relays of the database alone ({@link
 * io.outboxrelay.relay.source.cdc.leader.FencedOffsetBackingStore}); on start it reads its rows in
 * {@code (record_insert_ts, record_insert_seq)} order, the last row of a key winning.
 *
 * <p>The key is {@link OffsetKey}'s, the engine's name and the connector's partition as JSON,
 * {@code ["<relay.name>",{"server":"<relay.name>"}]}; the value is the binlog connector's offset:
 * {@code file} and {@code pos} (where to restart), {@code gtids} (the GTIDs completed), {@code
 * ts_sec} (the time of the last event, by the database's clock), {@code server_id}, and {@code
 * event} and {@code row} (events and rows to skip after {@code pos}, present only when not zero).
 * Immutable.
 *
 * @param rowId the row's {@code id}
 * @param key the {@code offset_key} text, exactly as stored
 * @param offset the parsed {@code offset_val}, in stored order
 * @param committedAt the {@code record_insert_ts}: when the relay last committed (its clock)
 * @param sequence the {@code record_insert_seq}
 */
record OffsetsRow(
    String rowId, String key, Map<String, Object> offset, Instant committedAt, int sequence) {

  /** Freezes the offset. */
  OffsetsRow {
    offset = Collections.unmodifiableMap(new LinkedHashMap<>(offset));
  }

  /**
   * This relay's stored position, if it has one.
   *
   * @param table the offsets table ({@code cdc.offsets.table})
   * @param relayName {@code relay.name}, the engine's name
   * @param lock whether to read {@code FOR UPDATE}
   */
  static Optional<OffsetsRow> read(Connection c, String table, String relayName, boolean lock)
      throws SQLException {
    OffsetsRow found = null;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT id, offset_key, offset_val, record_insert_ts, record_insert_seq FROM "
                    + table
                    + " ORDER BY record_insert_ts, record_insert_seq"
                    + (lock ? " FOR UPDATE" : ""));
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String key = rs.getString(2);
        if (OffsetKey.belongsTo(key, relayName)) {
          Timestamp ts = rs.getTimestamp(4);
          found =
              new OffsetsRow(
                  rs.getString(1),
                  key,
                  parseOffset(rs.getString(3)),
                  ts == null ? null : ts.toInstant(),
                  rs.getInt(5));
        }
      }
    }
    return Optional.ofNullable(found);
  }

  static Map<String, Object> parseOffset(String value) throws SQLException {
    try {
      Map<String, Object> m =
          value == null
              ? null
              : Json.MAPPER.readValue(value, new TypeReference<LinkedHashMap<String, Object>>() {});
      return m == null ? Map.of() : m;
    } catch (JsonProcessingException e) {
      throw new SQLException("the stored offset is not JSON: " + Connections.oneLine(e), e);
    }
  }

  /**
   * The offset Debezium's MariaDB connector stores for a position reached outside a transaction:
   * restart at {@code file}/{@code pos} with {@code gtids} completed, nothing to skip after it.
   *
   * @param at the position
   * @param serverId the source's {@code server_id}
   * @param epochSecond the database's time now
   * @return the {@code offset_val} text
   */
  static String offsetAt(BinlogServer.Position at, long serverId, long epochSecond) {
    return OffsetsDdl.offsetAt(at.file(), at.pos(), at.gtids(), serverId, epochSecond);
  }

  /**
   * Replaces the relay's stored position with {@code at}, in the caller's transaction: deletes its
   * row, if it has one, and inserts the new one as Debezium would.
   *
   * @param c the connection, auto-commit off
   * @param table the offsets table
   * @param relayName {@code relay.name}
   * @param existing the relay's row as read (locked) in this transaction, if any
   * @param at the new position
   * @param serverId the source's {@code server_id}
   * @param now when the position is stored, in epoch seconds (the database's clock: see {@link
   *     #databaseNow})
   * @throws SQLException when the row changed since it was read, or the write fails
   */
  static void write(
      Connection c,
      String table,
      String relayName,
      Optional<OffsetsRow> existing,
      BinlogServer.Position at,
      long serverId,
      long now)
      throws SQLException {
    writeOffset(c, table, relayName, existing, offsetAt(at, serverId, now));
  }

  /**
   * Replaces the relay's stored position with an offset given as Debezium's JSON text, in the
   * caller's transaction, as {@link #write} does.
   *
   * @param c the connection, auto-commit off
   * @param table the offsets table
   * @param relayName {@code relay.name}
   * @param existing the relay's row as read (locked) in this transaction, if any
   * @param offsetJson the {@code offset_val} text
   * @throws SQLException when the row changed since it was read, or the write fails
   */
  static void writeOffset(
      Connection c,
      String table,
      String relayName,
      Optional<OffsetsRow> existing,
      String offsetJson)
      throws SQLException {
    if (existing.isPresent()) {
      try (PreparedStatement delete =
          c.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
        delete.setString(1, existing.get().rowId());
        if (delete.executeUpdate() != 1) {
          throw new SQLException("the stored position changed while it was written: try again");
        }
      }
    }
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + table
                + " (id, offset_key, offset_val, record_insert_ts, record_insert_seq)"
                + " VALUES (?, ?, ?, CURRENT_TIMESTAMP, ?)")) {
      insert.setString(1, java.util.UUID.randomUUID().toString());
      insert.setString(2, existing.isPresent() ? existing.get().key() : OffsetKey.of(relayName));
      insert.setString(3, offsetJson);
      insert.setInt(4, existing.isPresent() ? existing.get().sequence() + 1 : 1);
      insert.executeUpdate();
    }
  }

  /**
   * Deletes every row of the relay's key, in the caller's transaction: with none left, its next
   * start is a first start. (A row left behind, had the table ever held two of the key, would be
   * taken as its position.)
   *
   * @param c the connection, auto-commit off
   * @param table the offsets table
   * @param relayName {@code relay.name}
   * @return how many rows were deleted
   * @throws SQLException when the table cannot be read or written
   */
  static int deleteAll(Connection c, String table, String relayName) throws SQLException {
    return OffsetKey.deleteRows(c, table, relayName);
  }

  /**
   * The database's clock, for {@link #write}.
   *
   * @param c the connection
   * @return now, in epoch seconds
   * @throws SQLException when the query fails
   */
  static long databaseNow(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT UNIX_TIMESTAMP()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** {@code file}, or null when the offset has none (a first start still in its snapshot). */
  String file() {
    Object f = offset.get("file");
    return f == null ? null : f.toString();
  }

  long pos() {
    return number("pos", 0);
  }

  String gtids() {
    Object g = offset.get("gtids");
    return g == null ? null : g.toString();
  }

  /** The time of the last event the position is after, or null. */
  Instant eventTime() {
    long ts = number("ts_sec", -1);
    return ts < 0 ? null : Instant.ofEpochSecond(ts);
  }

  long eventsToSkip() {
    return number("event", 0);
  }

  long rowsToSkip() {
    return number("row", 0);
  }

  BinlogServer.Position position() {
    return new BinlogServer.Position(file(), pos(), gtids());
  }

  private long number(String field, long otherwise) {
    Object v = offset.get(field);
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v != null) {
      try {
        return Long.parseLong(v.toString());
      } catch (NumberFormatException e) {
        return otherwise;
      }
    }
    return otherwise;
  }
}
