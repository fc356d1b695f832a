package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.leader.LeadershipStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a relay of the table still runs, for the hand-off: a CDC relay's lease that has not run
 * out, or any connection of the relay's user other than the command's own (a polling worker keeps
 * its connection for as long as it runs; a CDC relay, leader or standby, keeps its leadership and
 * binlog or replication connections). The relay's user is its own (see {@code relay-grants.sql} in
 * {@code config/mysql} and {@code config/postgresql}), so another session of it is a relay, or
 * another operator command. Binlog readers that are gone are first made to let go ({@link
 * BinlogServer#wakeReaders}). Stateless.
 */
final class RelayPresence {

  private RelayPresence() {}

  /**
   * Refuses (exit 2) while a relay of the table may still run.
   *
   * @param c the command's connection; left without an open transaction
   * @param config the relay's configuration, with CDC settings
   * @param what what the command was about to do, for the message
   * @throws AdminException (exit 2) naming what still runs
   */
  static void requireNone(Connection c, RelayConfig config, String what)
      throws SQLException, AdminException {
    String lease = liveLease(c, config);
    if (lease != null) {
      throw AdminException.usage(
          lease + ": stop every CDC relay of this table before " + what + "; nothing was changed");
    }
    long deadline = System.nanoTime() + BinlogServer.GONE_WITHIN.toNanos();
    List<String> sessions = sessions(c, config);
    while (!sessions.isEmpty() && System.nanoTime() < deadline) {
      if (sessions.stream().anyMatch(s -> s.contains("Binlog Dump"))) {
        BinlogServer.wakeReaders(c, config.cdc().offsetsTable());
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      sessions = sessions(c, config);
    }
    if (!sessions.isEmpty()) {
      throw AdminException.usage(
          sessions.size()
              + " other connection(s) of user '"
              + config.source().user()
              + "' are open on "
              + config.source().describe()
              + " ("
              + String.join("; ", sessions.subList(0, Math.min(3, sessions.size())))
              + "): stop every relay of this table, CDC and polling, before "
              + what
              + "; nothing was changed");
    }
  }

  private static String liveLease(Connection c, RelayConfig config) throws SQLException {
    SqlDialect dialect = SqlDialect.of(config.source().flavor());
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT holder, "
                + dialect.microsUntil("expires_at")
                + " FROM "
                + config.cdc().leaderTable()
                + " WHERE resource = ?")) {
      ps.setString(1, LeadershipStore.resourceOf(config.source()));
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && rs.getLong(2) > 0) {
          return "CDC relay "
              + rs.getString(1)
              + " holds the lease of "
              + LeadershipStore.resourceOf(config.source())
              + " for another "
              + PositionCommands.seconds(Duration.ofNanos(rs.getLong(2) * 1000))
              + " s (a relay stopped gracefully gives it up at once)";
        }
      }
    } catch (SQLException e) {
      if (!SqlErrors.isMissingTable(e)) {
        throw e;
      }
      // no leases table: no CDC relay ever ran with this configuration
    } finally {
      c.rollback();
    }
    return null;
  }

  private static List<String> sessions(Connection c, RelayConfig config) throws SQLException {
    String user = config.source().user();
    List<String> found = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(SqlDialect.of(config.source().flavor()).otherSessionsQuery())) {
      ps.setString(1, user);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(
              "connection "
                  + rs.getLong(1)
                  + " from "
                  + rs.getString(2)
                  + ", "
                  + rs.getString(3)
                  + " for "
                  + rs.getLong(4)
                  + " s");
        }
      }
    }
    c.rollback();
    return found;
  }
}
