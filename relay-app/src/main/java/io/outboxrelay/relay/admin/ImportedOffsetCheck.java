package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Checks a connector's offset before {@code position import} stores it: an offset the relay cannot
 * resume from (a {@code pos} that is no number, before the first event, past the end of its file or
 * inside an event; no {@code gtids} from a server that writes GTIDs; an incremental snapshot in
 * progress) would be stored and the relay would then die at start with a Debezium exception or a
 * {@code NullPointerException}. Each check answers with what is wrong and what to do, or null.
 * Stateless.
 */
final class ImportedOffsetCheck {

  /** The binlog's magic number takes the first 4 bytes of every file; its first event follows. */
  static final long FIRST_EVENT = 4;

  private static final Pattern WHOLE = Pattern.compile("\\d+");

  private ImportedOffsetCheck() {}

  /**
   * What is wrong with the offset's fields on their own, or null.
   *
   * @param o the offset
   * @param where names the offset for the message
   * @return the problem, or null
   */
  static String fieldProblem(Map<String, Object> o, String where) {
    TreeSet<String> incremental = new TreeSet<>();
    for (String k : o.keySet()) {
      if (k.startsWith("incremental_snapshot")) {
        incremental.add(k);
      }
    }
    if (!incremental.isEmpty()) {
      return where
          + " was stored during an incremental snapshot ("
          + String.join(", ", incremental)
          + "): the relay does not continue a snapshot; let the connector finish it (or stop it"
          + " with a stop-snapshot signal), wait for an offset without these keys, and stop the"
          + " connector again";
    }
    for (String f : List.of("pos", "event", "row")) {
      Object v = o.get(f);
      if (v != null && !WHOLE.matcher(v.toString()).matches()) {
        return where
            + " has "
            + f
            + " '"
            + v
            + "', not a whole number of "
            + ("pos".equals(f) ? "bytes" : f + "s")
            + ": give the connector's offset as Connect stored it";
      }
    }
    return null;
  }

  /**
   * What makes the position unusable on this server, or null.
   *
   * @param c a connection to the source
   * @param dialect the source's database
   * @param at the offset's position ({@code pos} already checked to be a whole number)
   * @param files the server's binlog files, the offset's among them
   * @param current the server's current position
   * @param where names the offset for the message
   * @return the problem, or null
   * @throws SQLException when the binlog cannot be read
   */
  static String serverProblem(
      Connection c,
      SqlDialect dialect,
      BinlogServer.Position at,
      List<BinlogServer.BinlogFile> files,
      BinlogServer.Position current,
      String where)
      throws SQLException {
    long end =
        at.file().equals(current.file())
            ? current.pos()
            : files.get(BinlogServer.indexOf(files, at.file())).size();
    if (at.pos() < FIRST_EVENT || at.pos() > end) {
      return where
          + " has pos "
          + at.pos()
          + ", outside binlog file "
          + at.file()
          + " (its events are from "
          + FIRST_EVENT
          + " to "
          + end
          + "): it is not a position of this server; check that the connector read "
          + "this server";
    }
    if (at.pos() < end && !startsAnEvent(c, at)) {
      return where
          + " has pos "
          + at.pos()
          + ", which is not where an event of "
          + at.file()
          + " starts: it is not a position of this server; check that the connector read this"
          + " server";
    }
    boolean serverHasGtids = current.gtids() != null && !current.gtids().isBlank();
    boolean offsetHasGtids = at.gtids() != null && !at.gtids().isBlank();
    if (serverHasGtids && !offsetHasGtids) {
      return where
          + " has no gtids, and the server writes GTIDs ("
          + current.gtids()
          + "): the relay resumes by GTID; take an offset the connector stored with gtids (it"
          + " stores them once it has read a GTID event: let it stream and stop it again)";
    }
    if (offsetHasGtids && !dialect.isGtidList(at.gtids().trim())) {
      return where
          + " has gtids '"
          + at.gtids()
          + "', not a MariaDB GTID list (domain-server-sequence, comma-separated): take the"
          + " offset of a connector that read this server";
    }
    return null;
  }

  /** Whether an event of the binlog starts at the position. */
  private static boolean startsAnEvent(Connection c, BinlogServer.Position at) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SHOW BINLOG EVENTS IN ? FROM " + at.pos() + " LIMIT 1")) {
      ps.setString(1, at.file());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      if (SqlErrors.isWrongBinlogOffset(e)) {
        c.rollback();
        return false;
      }
      throw e;
    }
  }
}
