package io.outboxrelay.relay.source.cdc;

import io.debezium.config.Configuration;
import io.outboxrelay.relay.RelayFailure;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the relay rather than let Debezium's PostgreSQL task stream from a slot that cannot give
 * what the relay's position needs. The engine restarts its task after a lost replication connection
 * (a database restart, or PostgreSQL ending the walsender of a slot it invalidated); Debezium's
 * task then creates the slot when it is missing, and a new slot starts at the server's current WAL
 * position, so the events committed since the stored position would never be published, silently.
 * Before each start of the task with a stored position, the slot must exist and not be invalidated
 * ({@code wal_status=lost}); otherwise the start fails with a {@link RelayFailure} naming the slot
 * and the recovery ({@link PostgresReplication#recovery}), which the relay reports as its one ERROR
 * and exits 1. Stateless.
 */
final class SlotGuard {

  private static final Logger LOG = LoggerFactory.getLogger(SlotGuard.class);

  private SlotGuard() {}

  /**
   * Checks the slot before the task starts.
   *
   * @param config the task's configuration (connection, slot, offsets table, relay name)
   * @param stored the engine's stored offset, or null before a first start
   * @throws RelayFailure when a stored position meets a missing or invalidated slot
   */
  static void check(Configuration config, Map<String, ?> stored) {
    if (stored == null || !stored.containsKey("lsn")) {
      return; // nothing stored: the slot is made (or was just made by the first start)
    }
    String slot = config.getString("slot.name");
    String problem;
    try (Connection c = connect(config);
        PreparedStatement ps =
            c.prepareStatement("SELECT wal_status FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          problem =
              "does not exist (dropped, or this server is a promoted standby that had no copy of"
                  + " it: a failover slot, cdc.slot.failover on PostgreSQL 17, survives that)";
        } else if ("lost".equals(rs.getString(1))) {
          problem = "was invalidated by PostgreSQL (wal_status=lost, e.g. max_slot_wal_keep_size)";
        } else {
          return;
        }
      }
    } catch (SQLException e) {
      // Debezium's own connection reports an unreachable server.
      LOG.debug("cannot check replication slot {} before streaming: {}", slot, e.toString());
      return;
    }
    String relayName = config.getString(RELAY_NAME, slot);
    throw new RelayFailure(
        "replication slot "
            + slot
            + " "
            + problem
            + " while relay.name '"
            + relayName
            + "' streamed from it; the relay stops rather than stream from a new slot: "
            + PostgresReplication.recovery(
                relayName, config.getString(OFFSETS_TABLE, "outbox_relay_offsets")),
        null);
  }

  /** The engine property that carries {@code relay.name} to the task. */
  static final String RELAY_NAME = "outbox.relay.name";

  /** The engine property that carries {@code cdc.offsets.table} to the task. */
  static final String OFFSETS_TABLE = "outbox.relay.offsets.table";

  private static Connection connect(Configuration config) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", config.getString("database.user"));
    String password = config.getString("database.password");
    if (password != null) {
      p.setProperty("password", password);
    }
    p.setProperty("connectTimeout", "10");
    p.setProperty("socketTimeout", "10");
    return DriverManager.getConnection(
        "jdbc:postgresql://"
            + config.getString("database.hostname")
            + ":"
            + config.getString("database.port")
            + "/"
            + config.getString("database.dbname"),
        p);
  }
}
