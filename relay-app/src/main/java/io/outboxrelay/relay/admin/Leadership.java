package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.HandoffRecords;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who publishes an outbox table in CDC mode, as the database shows it: the leadership row (holder,
 * its host and process id, {@code relay.name}, epoch, how long until it expires and since its last
 * renewal, by the database clock), the sessions of the relay's user by client host (the one with a
 * binlog reader is the leader's; the others are standbys, or operator commands), and the table's
 * latest hand-off. Read-only. Immutable.
 *
 * @param lease the leadership row, if a CDC relay ever ran on the table
 * @param sessions the relay user's sessions other than this command's, by client host, in the order
 *     first seen; empty when none (without {@code PROCESS} a user sees its own sessions only, which
 *     are the relays')
 * @param handoff the table's latest hand-off, if any
 */
record Leadership(
    Optional<Lease> lease, List<Host> sessions, Optional<HandoffRecords.Handoff> handoff) {

  /** {@code name@host:pid-suffix}, as a relay names itself in the leadership row. */
  private static final Pattern HOLDER = Pattern.compile("^(.*)@(.*):(\\d+)-[0-9a-f]+$");

  /**
   * The leadership row.
   *
   * @param holder the process holding it, or that held it last
   * @param relayName its {@code relay.name}
   * @param epoch the fencing epoch
   * @param expiresInMicros time left, by the database clock; zero or less once expired
   * @param renewedAgoMicros time since the last renewal (or since it was given up)
   */
  record Lease(
      String holder, String relayName, long epoch, long expiresInMicros, long renewedAgoMicros) {

    boolean live() {
      return expiresInMicros > 0;
    }

    /** The holder's host, or null when the id is not the relay's own form. */
    String host() {
      Matcher m = HOLDER.matcher(holder);
      return m.matches() ? m.group(2) : null;
    }

    /** The holder's process id, or -1 when the id is not the relay's own form. */
    long pid() {
      Matcher m = HOLDER.matcher(holder);
      return m.matches() ? Long.parseLong(m.group(3)) : -1;
    }
  }

  /**
   * The relay user's sessions from one client host.
   *
   * @param host the client host (without the port)
   * @param sessions how many
   * @param binlogReader whether one of them reads the binlog (the leader's)
   */
  record Host(String host, int sessions, boolean binlogReader) {}

  static Leadership read(Connection c, RelayConfig config) throws SQLException {
    Optional<Lease> lease = lease(c, config);
    List<Host> hosts = sessions(c, config.source().user());
    Optional<HandoffRecords.Handoff> handoff;
    try {
      handoff = HandoffRecords.latest(c, config.source());
    } catch (SQLException e) {
      if (!SqlErrors.isTableOrDatabaseDenied(e)) {
        throw e;
      }
      handoff = Optional.empty();
    }
    c.rollback();
    return new Leadership(lease, hosts, handoff);
  }

  private static Optional<Lease> lease(Connection c, RelayConfig config) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT holder, relay_name, epoch, TIMESTAMPDIFF(MICROSECOND, NOW(6), expires_at),"
                + " TIMESTAMPDIFF(MICROSECOND, renewed_at, NOW(6)) FROM "
                + config.cdc().leaderTable()
                + " WHERE resource = ?")) {
      ps.setString(1, HandoffRecords.resourceOf(config.source()));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Lease(
                rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
      }
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTable(e)) {
        return Optional.empty(); // no CDC relay ever ran with this configuration
      }
      throw e;
    }
  }

  private static List<Host> sessions(Connection c, String user) throws SQLException {
    Map<String, int[]> byHost = new LinkedHashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT HOST, COMMAND FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <>"
                + " CONNECTION_ID() ORDER BY ID")) {
      ps.setString(1, user);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String host = rs.getString(1) == null ? "?" : rs.getString(1).replaceFirst(":\\d+$", "");
          int[] counts = byHost.computeIfAbsent(host, h -> new int[2]);
          counts[0]++;
          if (rs.getString(2) != null && rs.getString(2).startsWith("Binlog Dump")) {
            counts[1]++;
          }
        }
      }
    }
    List<Host> hosts = new ArrayList<>();
    byHost.forEach((host, n) -> hosts.add(new Host(host, n[0], n[1] > 0)));
    return hosts;
  }

  /** The lines of {@code status} and {@code position show} about who publishes. */
  void print(TextTable t) {
    if (lease.isEmpty()) {
      t.row("leader:", "none: no CDC relay has run on this table");
    } else {
      Lease l = lease.get();
      String where = l.host() == null ? "" : " on host " + l.host() + ", pid " + l.pid();
      t.row(
          l.live() ? "leader:" : "last leader:",
          l.holder() + where + " (relay.name " + l.relayName() + "), epoch " + l.epoch());
      t.row(
          "  lease:",
          l.live()
              ? "expires in "
                  + PositionCommands.seconds(Duration.ofNanos(l.expiresInMicros() * 1000))
                  + " s, renewed "
                  + PositionCommands.ago(Duration.ofNanos(l.renewedAgoMicros() * 1000))
                  + " (database clock)"
              : "expired or given up "
                  + PositionCommands.ago(Duration.ofNanos(-l.expiresInMicros() * 1000))
                  + " (database clock): no relay publishes");
    }
    if (sessions.isEmpty()) {
      t.row("relay sessions:", "none");
    } else {
      List<String> parts = new ArrayList<>();
      for (Host h : sessions) {
        parts.add(
            h.host()
                + " ("
                + h.sessions()
                + (h.sessions() == 1 ? " session" : " sessions")
                + (h.binlogReader() ? ", reading the binlog: the leader" : "")
                + ")");
      }
      t.row("relay sessions:", String.join("; ", parts));
      int standbys = (int) sessions.stream().filter(h -> !h.binlogReader()).count();
      if (standbys > 0) {
        t.row(
            "  standbys:",
            standbys
                + (standbys == 1 ? " host" : " hosts")
                + " with sessions of the relay's user and no binlog reader (standbys, or operator"
                + " commands)");
      }
    }
    t.row("hand-off:", handoff.map(HandoffRecords.Handoff::describe).orElse("none recorded"));
  }

  /** The JSON of {@link #print}. */
  void put(ObjectNode n) {
    if (lease.isEmpty()) {
      n.putNull("leader");
    } else {
      Lease l = lease.get();
      ObjectNode o = n.putObject("leader");
      o.put("holder", l.holder());
      o.put("host", l.host());
      if (l.pid() >= 0) {
        o.put("pid", l.pid());
      } else {
        o.putNull("pid");
      }
      o.put("relay_name", l.relayName());
      o.put("epoch", l.epoch());
      o.put("live", l.live());
      o.put("expires_in_seconds", l.expiresInMicros() / 1e6);
      o.put("renewed_seconds_ago", l.renewedAgoMicros() / 1e6);
    }
    ArrayNode hosts = n.putArray("sessions");
    for (Host h : sessions) {
      ObjectNode o = hosts.addObject();
      o.put("host", h.host());
      o.put("sessions", h.sessions());
      o.put("binlog_reader", h.binlogReader());
    }
    if (handoff.isEmpty()) {
      n.putNull("handoff");
    } else {
      HandoffRecords.Handoff h = handoff.get();
      ObjectNode o = n.putObject("handoff");
      o.put("to", h.to().name().toLowerCase(java.util.Locale.ROOT));
      o.put("relay_name", h.relayName());
      o.put("operator", h.operator());
      o.put("handed_at", h.handedAt());
      o.put("seconds_ago", h.secondsAgo());
      o.put("finished", h.finished());
    }
  }
}
