package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the relay's replication slot a failover slot on PostgreSQL 17 and later ({@code
 * cdc.slot.failover}, on by default).
 *
 * <p>Before PostgreSQL 17 a logical slot exists on the primary only: after a promotion the new
 * primary has no slot, and the relay says so and names the recovery. From 17 on, a slot with {@code
 * failover = true} is copied to every standby that runs with {@code sync_replication_slots = on}
 * (its slot-sync worker follows the primary's {@code confirmed_flush_lsn}); once promoted, the
 * standby's copy is an ordinary slot the relay streams from. Its position may be behind the one the
 * relay confirmed on the old primary (the copy follows by polling): the relay starts from its
 * stored position, never earlier than the copy's, so what it publishes again is bounded by that lag
 * (at-least-once), and nothing is skipped. With the standby's physical slot in {@code
 * synchronized_standby_slots} on the primary, the relay is never sent a change the standby has not
 * received, so it never publishes an event that a promotion loses.
 *
 * <p>Before the engine starts, each term sets the flag on the slot when it is not set ({@code
 * ALTER_REPLICATION_SLOT ... (FAILOVER true)}, a replication command the relay's {@code
 * REPLICATION} role may run on its own slot while no one streams from it; the term has taken the
 * slot over by then). A refusal is logged as a warning and the term goes on: the relay then works
 * as before 17. Stateless.
 */
final class FailoverSlot {

  private static final Logger LOG = LoggerFactory.getLogger(FailoverSlot.class);

  /** The first major version with failover slots. */
  static final int FIRST_VERSION = 17;

  private FailoverSlot() {}

  /**
   * Sets {@code failover = true} on the relay's slot when {@code cdc.slot.failover} asks for it,
   * the server is PostgreSQL 17 or later, and the slot exists without it.
   *
   * @param config the relay configuration
   * @return whether the flag was set now
   * @throws SQLException when the database cannot be read
   * @throws StartupCheckException when the database refuses the relay's user
   */
  static boolean apply(RelayConfig config) throws SQLException, StartupCheckException {
    if (!config.cdc().slotFailover()) {
      return false;
    }
    String slot = PostgresReplication.slotName(config.name());
    String context = config.logContext();
    String standbySlots;
    try (Connection c = TermConnections.open(config)) {
      c.setAutoCommit(true);
      if (majorVersion(c) < FIRST_VERSION) {
        return false;
      }
      Boolean failover = failover(c, slot);
      if (failover == null || failover) {
        return false; // no slot yet (the engine makes it, next term sets it), or set already
      }
      standbySlots = setting(c, "synchronized_standby_slots");
    }
    try (Connection replication = PostgresReplication.replicationConnection(config);
        Statement st = replication.createStatement()) {
      st.execute("ALTER_REPLICATION_SLOT \"" + slot + "\" ( FAILOVER true )");
    } catch (SQLException refused) {
      LOG.warn(
          "[{}] replication slot {} could not be made a failover slot (cdc.slot.failover=true): {};"
              + " it stays on this server only, and a promoted standby will not have it (set"
              + " cdc.slot.failover=false to stop trying)",
          context,
          slot,
          refused.getMessage());
      return false;
    }
    LOG.info(
        "[{}] replication slot {} is now a failover slot (cdc.slot.failover=true): a standby with"
            + " sync_replication_slots=on keeps a copy, which the relay streams from after that"
            + " standby is promoted{}",
        context,
        slot,
        standbySlots == null || standbySlots.isBlank()
            ? "; synchronized_standby_slots is empty here, so the relay may publish a change that"
                + " a standby has not received yet and a promotion of it loses"
            : " (synchronized_standby_slots = '" + standbySlots + "')");
    return true;
  }

  /** The slot's {@code failover} flag, or null when there is no such slot. */
  static Boolean failover(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT failover FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBoolean(1) : null;
      }
    }
  }

  private static int majorVersion(Connection c) throws SQLException {
    return Integer.parseInt(setting(c, "server_version_num")) / 10000;
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT current_setting(?, true)")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}
