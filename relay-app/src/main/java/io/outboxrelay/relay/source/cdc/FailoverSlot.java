package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.function.BooleanSupplier;
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
 * REPLICATION} role may run on its own slot). PostgreSQL's command waits while another connection
 * streams from the slot, so the relay runs it only while this term still leads and nobody holds the
 * slot, and bounds it ({@link #ALTER_TIMEOUT}, after which the driver cancels it); a slot in use is
 * left for the next term. When the slot does not exist yet (Debezium makes it at the engine's
 * start, with {@code cdc.first.start=skip}), the engine is asked to make a failover slot
 * (Debezium's {@code slot.failover}). Nothing here stops the relay: whatever fails is one WARN, and
 * the relay then works as before 17. Before 17 nothing is sent. Stateless.
 */
final class FailoverSlot {

  private static final Logger LOG = LoggerFactory.getLogger(FailoverSlot.class);

  /** The first major version with failover slots. */
  static final int FIRST_VERSION = 17;

  /** The longest the relay waits for {@code ALTER_REPLICATION_SLOT}. */
  static final Duration ALTER_TIMEOUT = Duration.ofSeconds(10);

  private FailoverSlot() {}

  /**
   * Makes the relay's slot a failover slot when {@code cdc.slot.failover} asks for it and the
   * server is PostgreSQL 17 or later: sets {@code failover = true} on a slot that exists without
   * it, or asks the engine to make one ({@code slot.failover} in {@code properties}) when there is
   * no slot yet. Never throws for the database: a failure is logged.
   *
   * @param config the relay configuration
   * @param properties the engine's properties, for a slot Debezium makes
   * @param mayAct whether this term still leads and is not stopping
   * @return whether the flag was set on the slot now
   */
  static boolean apply(RelayConfig config, Properties properties, BooleanSupplier mayAct) {
    if (!config.cdc().slotFailover()) {
      return false;
    }
    String slot = PostgresReplication.slotName(config.name());
    String context = config.logContext();
    String standbySlots;
    try {
      try (Connection c = TermConnections.open(config)) {
        c.setAutoCommit(true);
        if (PostgresPreflight.serverVersion(c) < FIRST_VERSION) {
          return false;
        }
        Slot state = slot(c, slot);
        if (state == null) {
          properties.setProperty("slot.failover", "true"); // the engine makes the slot
          return false;
        }
        if (Boolean.TRUE.equals(state.failover())) {
          return false;
        }
        if (state.active() || !mayAct.getAsBoolean()) {
          LOG.info(
              "[{}] replication slot {} is not a failover slot yet, and {}: the next term makes it"
                  + " one",
              context,
              slot,
              state.active() ? "another connection streams from it" : "this term is ending");
          return false;
        }
        standbySlots = setting(c, "synchronized_standby_slots");
      }
      try (Connection replication = PostgresReplication.replicationConnection(config);
          Statement st = replication.createStatement()) {
        st.setQueryTimeout((int) ALTER_TIMEOUT.toSeconds());
        st.execute("ALTER_REPLICATION_SLOT \"" + slot + "\" ( FAILOVER true )");
      }
    } catch (SQLException | StartupCheckException e) {
      LOG.warn(
          "[{}] replication slot {} could not be made a failover slot (cdc.slot.failover=true): {};"
              + " it stays on this server only, and a promoted standby will not have it; the next"
              + " term tries again (cdc.slot.failover=false stops trying)",
          context,
          slot,
          e.getMessage());
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

  /** A slot's {@code failover} flag (null before 17) and whether a connection streams from it. */
  record Slot(Boolean failover, boolean active) {}

  /** The slot, or null when there is no slot of that name. */
  static Slot slot(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (to_jsonb(s) ->> 'failover')::boolean, active FROM pg_replication_slots s"
                + " WHERE slot_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        boolean failover = rs.getBoolean(1);
        Boolean flag = rs.wasNull() ? null : failover;
        return new Slot(flag, rs.getBoolean(2));
      }
    }
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
