package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the source server says about its binlog, read with the relay user's {@code BINLOG MONITOR}
 * ({@code REPLICATION CLIENT}) grant: the current position, the binlog files it still has, and the
 * binlog readers connected as the relay's user. Stateless.
 */
final class BinlogServer {

  /**
   * How long the sessions and binlog readers of a relay that just stopped are given to leave the
   * process list (while {@link #wakeReaders} makes the gone readers notice) before a command counts
   * them as still running.
   */
  static final Duration GONE_WITHIN = Duration.ofSeconds(5);

  /** A position in the binlog. */
  record Position(String file, long pos, String gtids) {
    @Override
    public String toString() {
      return file + ":" + pos + (gtids == null || gtids.isEmpty() ? "" : " (GTID " + gtids + ")");
    }
  }

  /** A binlog file the server still has. */
  record BinlogFile(String name, long size) {}

  /** A connected binlog reader (a {@code Binlog Dump} thread). */
  record Reader(long connectionId, String host, long seconds) {}

  private BinlogServer() {}

  /**
   * The server's current binlog position. On MariaDB the GTID position is read before and after
   * {@code SHOW MASTER STATUS} and the read repeated until both agree, so the file, offset and GTID
   * describe one point (without the global read lock that would need {@code RELOAD}).
   */
  static Position current(Connection c, SqlDialect dialect) throws SQLException {
    String gtidQuery = dialect.gtidBinlogPositionQuery();
    if (gtidQuery == null) {
      return mysqlStatus(c);
    }
    for (int attempt = 1; ; attempt++) {
      String before = gtidBinlogPos(c, gtidQuery);
      Position status = masterStatus(c, "SHOW MASTER STATUS");
      String after = gtidBinlogPos(c, gtidQuery);
      if (before.equals(after) || attempt == 20) {
        if (!before.equals(after)) {
          throw new SQLException(
              "the binlog position kept moving while it was read (20 times): try again when the"
                  + " database is less busy");
        }
        return new Position(status.file(), status.pos(), after);
      }
    }
  }

  private static String gtidBinlogPos(Connection c, String query) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      rs.next();
      String v = rs.getString(1);
      return v == null ? "" : v;
    }
  }

  private static Position mysqlStatus(Connection c) throws SQLException {
    try {
      return masterStatus(c, "SHOW BINARY LOG STATUS"); // MySQL 8.2+
    } catch (SQLException e) {
      return masterStatus(c, "SHOW MASTER STATUS");
    }
  }

  private static Position masterStatus(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      if (!rs.next()) {
        throw new SQLException("the binary log is off: " + sql + " returned nothing");
      }
      String gtids = null;
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        if (meta.getColumnLabel(i).equalsIgnoreCase("Executed_Gtid_Set")) {
          gtids = rs.getString(i);
        }
      }
      return new Position(rs.getString(1), rs.getLong(2), gtids);
    }
  }

  /** The binlog files the server has, oldest first. */
  static List<BinlogFile> files(Connection c) throws SQLException {
    List<BinlogFile> files = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
      while (rs.next()) {
        files.add(new BinlogFile(rs.getString(1), rs.getLong(2)));
      }
    }
    return files;
  }

  /**
   * Binlog readers connected as {@code user}: a running CDC relay of this configuration is one.
   * Every user sees its own connections in the process list.
   */
  static List<Reader> readers(Connection c, String user) throws SQLException {
    List<Reader> readers = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT ID, HOST, TIME FROM information_schema.PROCESSLIST WHERE USER = ? AND"
                + " COMMAND LIKE 'Binlog Dump%'")) {
      ps.setString(1, user);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          readers.add(new Reader(rs.getLong(1), rs.getString(2), rs.getLong(3)));
        }
      }
    }
    return readers;
  }

  /**
   * Makes binlog readers that are gone let go of their connections. A server notices that a reader
   * went away only when it next sends it something: after a relay stopped, its {@code Binlog Dump}
   * thread stays in the process list until the binlog moves or the reader's heartbeat period passes
   * (Debezium's is most of a minute). This writes one transaction to the binlog that changes
   * nothing anyone can see: a probe row inserted into and deleted from the offsets table (which the
   * relay's user may write) in the same transaction. Live readers receive it and go on (the relay
   * captures only the outbox table); sending to gone ones fails, and their threads end. Commits.
   */
  static void wakeReaders(Connection c, String offsetsTable) throws SQLException {
    String id = java.util.UUID.randomUUID().toString();
    try (PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO "
                    + offsetsTable
                    + " (id, offset_key, offset_val, record_insert_ts, record_insert_seq)"
                    + " VALUES (?, '[\"outbox-relay probe\"]', '{}', CURRENT_TIMESTAMP, 0)");
        PreparedStatement delete =
            c.prepareStatement("DELETE FROM " + offsetsTable + " WHERE id = ?")) {
      insert.setString(1, id);
      insert.executeUpdate();
      delete.setString(1, id);
      delete.executeUpdate();
    }
    c.commit();
  }

  /**
   * The binlog readers of {@code user} still connected once those that are gone had their chance to
   * leave: a probe transaction every quarter second for up to {@link #GONE_WITHIN} (see {@link
   * #wakeReaders}). It takes more than one: the server's first write to a closed connection usually
   * succeeds, and only the answer to it (a reset) makes the next one fail. Ends {@code c}'s
   * transaction first.
   */
  static List<Reader> readersStillConnected(Connection c, String offsetsTable, String user)
      throws SQLException {
    c.rollback();
    long deadline = System.nanoTime() + GONE_WITHIN.toNanos();
    while (true) {
      wakeReaders(c, offsetsTable);
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return readers(c, user);
      }
      List<Reader> readers = readers(c, user);
      c.rollback();
      if (readers.isEmpty() || System.nanoTime() > deadline) {
        return readers;
      }
    }
  }

  /**
   * One line naming the first of {@code readers} (host, connection, age) and how many more, ending
   * with {@code whatToStop}.
   */
  static String describeConnected(
      List<Reader> readers, String user, String server, String whatToStop) {
    Reader r = readers.get(0);
    return "a binlog reader of user '"
        + user
        + "' is connected to "
        + server
        + " from "
        + r.host()
        + " (connection "
        + r.connectionId()
        + ", for "
        + r.seconds()
        + " s)"
        + (readers.size() > 1 ? " with " + (readers.size() - 1) + " more" : "")
        + ": "
        + whatToStop;
  }

  /**
   * The binlog bytes from {@code from} to {@code to}, or -1 when {@code from}'s file is gone or
   * either file is unknown.
   */
  static long bytesBetween(List<BinlogFile> files, Position from, Position to) {
    int start = indexOf(files, from.file());
    int end = indexOf(files, to.file());
    if (start < 0 || end < 0 || start > end) {
      return -1;
    }
    if (start == end) {
      return Math.max(0, to.pos() - from.pos());
    }
    long bytes = Math.max(0, files.get(start).size() - from.pos());
    for (int i = start + 1; i < end; i++) {
      bytes += files.get(i).size();
    }
    return bytes + to.pos();
  }

  static int indexOf(List<BinlogFile> files, String name) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
