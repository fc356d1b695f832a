package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.source.cdc.PostgresReplication;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * {@code outbox-relay status} of a CDC relay on PostgreSQL: its stored position (an LSN), its
 * replication slot ({@code confirmed_flush_lsn}, {@code wal_status}, whether a reader holds it) and
 * the WAL the slot holds up to the server's current position. Read-only. Not thread-safe.
 *
 * @param position the stored {@code lsn}, or null when none is stored
 * @param firstStartRunning whether the stored row is a first start's marker
 * @param slot the slot's name
 * @param slotExists whether the slot exists
 * @param confirmedFlush its {@code confirmed_flush_lsn}, or null
 * @param walStatus its {@code wal_status}, or null
 * @param active whether a reader holds it
 * @param failover whether it is a failover slot, or null before PostgreSQL 17 (which has none)
 * @param server the server's current WAL position
 * @param behind the WAL bytes the slot holds past its confirmed position, or null
 * @param stored the stored {@code offset_val} as it is (a position or a marker), or null
 */
record PostgresCdcStatus(
    String position,
    boolean firstStartRunning,
    String slot,
    boolean slotExists,
    String confirmedFlush,
    String walStatus,
    boolean active,
    Boolean failover,
    String server,
    Long behind,
    String stored) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Reads the status.
   *
   * @param c a connection as the relay's user
   * @param config the relay's configuration
   * @param slot the relay's slot
   * @return the status
   * @throws SQLException when the database cannot be read
   */
  static PostgresCdcStatus read(Connection c, RelayConfig config, String slot) throws SQLException {
    String stored = PostgresReplication.storedOffset(c, config);
    String position = null;
    boolean marker = false;
    if (stored != null) {
      try {
        JsonNode n = JSON.readTree(stored);
        marker = n.has("outbox_relay_first_start");
        if (n.has("lsn")) {
          position = PostgresReplication.lsnText(n.get("lsn").asLong());
        }
      } catch (java.io.IOException e) {
        position = null; // not a position the relay wrote
      }
    }
    String server;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      server = rs.getString(1);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT confirmed_flush_lsn::text, wal_status, active, (pg_current_wal_lsn() -"
                + " confirmed_flush_lsn)::bigint, (to_jsonb(s) ->> 'failover')::boolean"
                + " FROM pg_replication_slots s WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new PostgresCdcStatus(
              position, marker, slot, false, null, null, false, null, server, null, stored);
        }
        long behind = rs.getLong(4);
        Long bytesBehind = rs.wasNull() ? null : behind;
        boolean failover = rs.getBoolean(5);
        Boolean failoverOrNull = rs.wasNull() ? null : failover;
        return new PostgresCdcStatus(
            position,
            marker,
            slot,
            true,
            rs.getString(1),
            rs.getString(2),
            rs.getBoolean(3),
            failoverOrNull,
            server,
            bytesBehind,
            stored);
      }
    }
  }

  /**
   * Prints the status, as aligned lines or JSON; with {@code delivery.guarantee=exactly-once}, with
   * the position committed in Kafka and which one the next start takes ({@link KafkaCommitted},
   * read after the database, which it does not answer for).
   */
  void print(PrintWriter out, RelayConfig config, boolean json) {
    KafkaCommitted kafka = KafkaCommitted.readPostgres(config, stored);
    if (json) {
      ObjectNode n = json(config);
      n.put(
          "delivery_guarantee", config.delivery().exactlyOnce() ? "exactly-once" : "at-least-once");
      if (kafka != null) {
        kafka.put(n);
      }
      Json.print(out, n);
      return;
    }
    print(out, config);
    if (kafka != null) {
      TextTable t = new TextTable("", "");
      kafka.print(t, storedPosition());
      t.print(out);
    }
  }

  /** The stored position as a map, or null when none (or a marker) is stored. */
  private java.util.Map<String, Object> storedPosition() {
    if (!PostgresReplication.isPosition(stored)) {
      return null;
    }
    try {
      return OffsetsRow.parseOffset(stored);
    } catch (SQLException e) {
      return null;
    }
  }

  /** Prints the status as aligned lines. */
  void print(PrintWriter out, RelayConfig config) {
    TextTable t = new TextTable("", "");
    t.row("relay:", config.name() + " (cdc, postgresql " + config.source().describe() + ")");
    t.row(
        "position:",
        position != null
            ? position + " (" + config.cdc().offsetsTable() + ")"
            : firstStartRunning ? "a first start is under way (or did not finish)" : "none stored");
    t.row(
        "slot:",
        slotExists
            ? slot
                + ", confirmed_flush_lsn "
                + confirmedFlush
                + ", wal_status "
                + walStatus
                + (active ? ", read by a relay" : ", no reader")
                + (failover == null ? "" : failover ? ", failover slot" : ", not a failover slot")
            : slot + " does not exist (the relay's first start creates it)");
    t.row("server:", server);
    t.row(
        "slot holds:",
        behind == null ? "-" : String.format(Locale.ROOT, "%,d bytes of WAL", behind));
    t.print(out);
  }

  /** The status as JSON. */
  ObjectNode json(RelayConfig config) {
    ObjectNode n = Json.object();
    n.put("relay", config.name());
    n.put("mode", "cdc");
    n.put("flavor", "postgresql");
    n.put("position", position);
    n.put("first_start_running", firstStartRunning);
    ObjectNode s = n.putObject("slot");
    s.put("name", slot);
    s.put("exists", slotExists);
    s.put("confirmed_flush_lsn", confirmedFlush);
    s.put("wal_status", walStatus);
    s.put("active", active);
    if (failover != null) {
      s.put("failover", failover);
    }
    if (behind != null) {
      s.put("behind_bytes", behind);
    }
    n.put("server_lsn", server);
    return n;
  }
}
