package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks, at start, for traces of a relay of the other mode on the same outbox table: a CDC relay
 * and a polling relay on one table publish every event twice, and nothing else stops that yet. Both
 * checks read only what the relay's user may see, cost a few index reads, and never fail a start:
 * what they cannot read they skip (logged at DEBUG). They see a relay that is working, not one that
 * is idle. Stateless.
 */
public final class ModeOverlap {

  private static final Logger LOG = LoggerFactory.getLogger(ModeOverlap.class);

  /** How recent a trace must be to count as a relay that is running. */
  static final int RECENT_SECONDS = 120;

  /** The relay name in a Debezium offset key: {@code ["orders",{"server":"orders"}]}. */
  private static final Pattern OFFSET_KEY_NAME = Pattern.compile("^\\[\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static final String RISK =
      "a CDC relay and a polling relay on one table publish every event twice: stop one of them"
          + " (to switch modes, see docs/operations.md)";

  private ModeOverlap() {}

  /**
   * For a polling relay: a binlog reader connected as the relay's own user, or a CDC position in
   * {@code offsetsTable} written within the last two minutes.
   *
   * @param c a connection as the relay's user (MariaDB/MySQL); left without an open transaction
   * @param source where the outbox table is
   * @param relayName this relay's {@code relay.name}
   * @param offsetsTable the table where CDC relays keep their position
   * @return one line naming what was seen and the risk, or empty
   */
  public static Optional<String> cdcTraces(
      Connection c, SourceConfig source, String relayName, String offsetsTable) {
    List<String> seen = new ArrayList<>();
    String offsets = source.database() + "." + offsetsTable;
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT offset_key, TIMESTAMPDIFF(SECOND, record_insert_ts, NOW()) FROM "
                    + offsets)) {
      while (rs.next()) {
        long age = rs.getLong(2);
        // The stored time is the CDC relay's own clock: a small lead counts as recent too.
        if (Math.abs(age) <= RECENT_SECONDS) {
          String name = offsetRelayName(rs.getString(1));
          seen.add(
              "the binlog position of CDC relay '"
                  + name
                  + "'"
                  + (relayName.equals(name) ? " (this relay.name)" : "")
                  + " in "
                  + offsets
                  + " was written "
                  + Math.max(0, age)
                  + " s ago");
          break;
        }
      }
    } catch (SQLException e) {
      LOG.debug("cannot read {} to look for a CDC relay: {}", offsets, e.toString());
    }
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE"
                    + " 'Binlog Dump%' AND USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)")) {
      // Without the PROCESS privilege a user sees only its own threads: enough here, since a
      // replica would use its own account.
      if (rs.next() && rs.getLong(1) > 0) {
        seen.add(
            rs.getLong(1)
                + " binlog reader(s) connected as user '"
                + source.user()
                + "', this relay's user");
      }
    } catch (SQLException e) {
      LOG.debug("cannot list binlog readers to look for a CDC relay: {}", e.toString());
    }
    rollback(c);
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "a CDC relay seems to stream "
            + source.database()
            + "."
            + source.table()
            + ": "
            + String.join(" and ", seen)
            + "; "
            + RISK);
  }

  /**
   * For a CDC relay: polling bookkeeping that moves — events leased to a polling worker right now,
   * or the newest published event published within the last two minutes. Only on a table with the
   * polling columns and the {@code (status, id)} index, without which polling cannot run (and the
   * look-up would scan the table).
   *
   * @param c a connection as the relay's user (MariaDB/MySQL)
   * @param source where the outbox table is
   * @param columns the table's columns (lower case)
   * @return one line naming what was seen and the risk, or empty
   */
  public static Optional<String> pollingTraces(
      Connection c, SourceConfig source, java.util.Set<String> columns) {
    if (!columns.containsAll(List.of("status", "processing_until", "published_at"))) {
      return Optional.empty();
    }
    String table = source.database() + "." + source.table();
    List<String> seen = new ArrayList<>();
    try {
      if (!hasStatusIndex(c, source)) {
        return Optional.empty();
      }
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM "
                      + table
                      + " WHERE status = 'PROCESSING' AND processing_until > NOW(6) LIMIT 1000)"
                      + " leased), (SELECT TIMESTAMPDIFF(SECOND, published_at, NOW(6)) FROM "
                      + table
                      + " WHERE status = 'PUBLISHED' ORDER BY id DESC LIMIT 1)")) {
        rs.next();
        long leased = rs.getLong(1);
        if (leased > 0) {
          seen.add(leased + (leased == 1 ? " event" : " events") + " leased to a polling worker");
        }
        long age = rs.getLong(2);
        if (!rs.wasNull() && age <= RECENT_SECONDS) {
          seen.add("the newest published event was marked PUBLISHED " + age + " s ago");
        }
      }
    } catch (SQLException e) {
      LOG.debug("cannot read {} to look for a polling relay: {}", table, e.toString());
    }
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "a polling relay seems to publish from "
            + table
            + ": "
            + String.join(" and ", seen)
            + "; "
            + RISK);
  }

  private static boolean hasStatusIndex(Connection c, SourceConfig source) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND"
                + " TABLE_NAME = ? AND SEQ_IN_INDEX = 1 AND LOWER(COLUMN_NAME) = 'status'")) {
      ps.setString(1, source.database());
      ps.setString(2, source.table());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  static String offsetRelayName(String key) {
    Matcher m = OFFSET_KEY_NAME.matcher(key == null ? "" : key);
    return m.find() ? m.group(1) : "?";
  }

  private static void rollback(Connection c) {
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException e) {
      LOG.debug("rollback after the look for a CDC relay failed: {}", e.toString());
    }
  }
}
