package io.outboxrelay.relay.source.cdc.leader;

import io.outboxrelay.relay.config.RelayConfigKeys;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A live leadership of this relay's table and {@code relay.name} held in another leases table:
 * replicas that disagree on {@code cdc.leader.table} each lead in their own table, take the binlog
 * connection from each other (they share {@code cdc.server.id}) every few seconds and publish
 * events twice. Leases tables are found by their shape (the columns of {@link LeadershipStore#DDL})
 * in the source database; a table the relay's user may not read is passed over. Every time is the
 * database's. Stateless.
 */
public final class RivalLeadership {

  /** The columns of a leases table. */
  private static final List<String> SHAPE =
      List.of("resource", "holder", "relay_name", "epoch", "expires_at", "renewed_at");

  /**
   * A live leadership in another table.
   *
   * @param table the other leases table
   * @param holder the process that holds it
   * @param remainingMillis how long it lasts without a renewal
   */
  public record Rival(String table, String holder, long remainingMillis) {}

  private RivalLeadership() {}

  /**
   * Looks for a live leadership of the outbox table for {@code relayName} in a leases table other
   * than {@code leaderTable}.
   *
   * @param c a connection to the source database (MariaDB/MySQL); its transaction is rolled back
   * @param source where the outbox table and the leases tables are
   * @param leaderTable this relay's {@code cdc.leader.table}
   * @param relayName this relay's {@code relay.name}
   * @return the first one found, or empty
   * @throws SQLException when the catalog cannot be read
   */
  public static Optional<Rival> find(
      Connection c, SourceConfig source, String leaderTable, String relayName) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT TABLE_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND"
                + " LOWER(COLUMN_NAME) IN (?, ?, ?, ?, ?, ?) GROUP BY TABLE_NAME HAVING COUNT(*) ="
                + " 6")) {
      ps.setString(1, source.database());
      for (int i = 0; i < SHAPE.size(); i++) {
        ps.setString(i + 2, SHAPE.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String t = rs.getString(1);
          if (!t.equalsIgnoreCase(leaderTable)) {
            tables.add(t);
          }
        }
      }
    }
    try {
      for (String table : tables) {
        Optional<Rival> rival = live(c, source, table, relayName);
        if (rival.isPresent()) {
          return rival;
        }
      }
      return Optional.empty();
    } finally {
      c.rollback();
    }
  }

  private static Optional<Rival> live(
      Connection c, SourceConfig source, String table, String relayName) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT holder, TIMESTAMPDIFF(MICROSECOND, NOW(6), expires_at) FROM `"
                + source.database().replace("`", "``")
                + "`.`"
                + table.replace("`", "``")
                + "` WHERE resource = ? AND relay_name = ? AND expires_at > NOW(6)")) {
      ps.setString(1, LeadershipStore.resourceOf(source));
      ps.setString(2, relayName);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return Optional.of(new Rival(table, rs.getString(1), rs.getLong(2) / 1000));
        }
        return Optional.empty();
      }
    } catch (SQLException e) {
      if (SqlErrors.isTableOrDatabaseDenied(e) || SqlErrors.isNoSuchTable(e)) {
        return Optional.empty(); // not ours to read, or dropped meanwhile
      }
      throw e;
    }
  }

  /**
   * One line naming the setting and both tables.
   *
   * @param rival what was found
   * @param source where the outbox table is
   * @param leaderTable this relay's {@code cdc.leader.table}
   * @param relayName this relay's {@code relay.name}
   * @return the message
   */
  public static String message(
      Rival rival, SourceConfig source, String leaderTable, String relayName) {
    String key = RelayConfigKeys.CDC_LEADER_TABLE.name();
    return key
        + "="
        + leaderTable
        + ", but "
        + rival.holder()
        + " of relay.name '"
        + relayName
        + "' leads "
        + LeadershipStore.resourceOf(source)
        + " in leases table "
        + rival.table()
        + " (for "
        + rival.remainingMillis() / 1000
        + " s more unless renewed): relays of one table that disagree on "
        + key
        + " both lead, take the binlog connection from each other and publish events twice; set "
        + key
        + "="
        + rival.table()
        + " on this relay (every relay of a table, leader and standbys, shares one "
        + key
        + "), or stop that relay first";
  }
}
