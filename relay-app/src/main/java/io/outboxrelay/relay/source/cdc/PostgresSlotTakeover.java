package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new leader on PostgreSQL takes its replication slot from a deposed leader that still holds it.
 *
 * <p>One slot has one reader: while another connection streams from it ({@code
 * pg_replication_slots.active}), the connector's {@code START_REPLICATION} fails. A leader killed a
 * moment ago holds it until its walsender notices the closed socket (at once on one host, or after
 * a TCP timeout); a leader that is frozen (SIGSTOP, a long GC, a paused VM) or cut off by the
 * network holds it until {@code wal_sender_timeout} (a minute by default) ends its walsender.
 *
 * <p>Before its engine starts, the leader waits {@link #GRACE} for the slot to be released, then
 * ends the holding backend itself ({@code pg_terminate_backend}, allowed to the relay's user for
 * its own walsenders) and waits for the slot to be free. That is safe only because this relay holds
 * the lease in a newer epoch: the deposed leader's position commits are fenced by its epoch, so it
 * cannot move the stored position, and the slot's flush position follows only the committed
 * position; what it published after its last commit is published again (at-least-once). Nothing is
 * ended unless this term may still publish. A holder of another user cannot be ended (the server
 * refuses): the engine then retries as before, and the refusal is logged.
 *
 * <p>Stateless.
 */
final class PostgresSlotTakeover {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresSlotTakeover.class);

  /** How long a slot is left to its holder to release by itself (a killed leader's walsender). */
  static final Duration GRACE = Duration.ofSeconds(2);

  /** How long to wait for the slot to be released once its holder was ended. */
  private static final Duration RELEASE = Duration.ofSeconds(10);

  private static final long POLL_MILLIS = 100;

  private PostgresSlotTakeover() {}

  /**
   * Waits for the relay's slot to be free, ending a holder that does not let go within {@link
   * #GRACE}. Returns at once when the slot does not exist or nobody holds it.
   *
   * @param config the relay configuration
   * @param epoch this term's epoch, for the log
   * @param mayAct whether this term still leads (and is not stopping): checked before ending a
   *     holder
   * @throws InterruptedException when interrupted
   */
  static void takeOver(RelayConfig config, long epoch, BooleanSupplier mayAct)
      throws InterruptedException {
    String slot = PostgresReplication.slotName(config.name());
    String context = config.logContext();
    try (Connection c = TermConnections.open(config)) {
      c.setAutoCommit(true);
      long graceEnd = System.nanoTime() + GRACE.toNanos();
      Integer holder = holder(c, slot);
      while (holder != null && System.nanoTime() < graceEnd) {
        Thread.sleep(POLL_MILLIS);
        holder = holder(c, slot);
      }
      if (holder == null || !mayAct.getAsBoolean()) {
        return;
      }
      boolean ended;
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
        ps.setInt(1, holder);
        try (ResultSet rs = ps.executeQuery()) {
          ended = rs.next() && rs.getBoolean(1);
        }
      }
      LOG.warn(
          "[{}] replication slot {} was still held by process {} (the previous leader's"
              + " replication connection: a relay killed, frozen or cut off); as leader of epoch {}"
              + " this relay ended it (pg_terminate_backend{}); the previous leader is fenced and"
              + " cannot commit a position any more",
          context,
          slot,
          holder,
          epoch,
          ended ? "" : ": it had already gone");
      long releaseEnd = System.nanoTime() + RELEASE.toNanos();
      while (holder(c, slot) != null && System.nanoTime() < releaseEnd) {
        Thread.sleep(POLL_MILLIS);
      }
    } catch (SQLException | StartupCheckException e) {
      // The engine's own connection retries report what is wrong; a slot still held shows there.
      LOG.warn(
          "[{}] cannot take replication slot {} from a previous holder: {}",
          context,
          slot,
          e instanceof StartupCheckException s ? String.join("; ", s.problems()) : e.getMessage());
    }
  }

  /** The process that holds the slot, or null when it is free or does not exist. */
  private static Integer holder(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT active_pid FROM pg_replication_slots WHERE slot_name = ? AND active")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        int pid = rs.getInt(1);
        return rs.wasNull() ? null : pid;
      }
    }
  }
}
