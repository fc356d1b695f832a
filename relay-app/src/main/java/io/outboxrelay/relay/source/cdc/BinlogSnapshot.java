package io.outboxrelay.relay.source.cdc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * A consistent snapshot of the source database together with the binlog position it corresponds to:
 * MariaDB's {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} followed by {@code SHOW STATUS LIKE
 * 'binlog_snapshot_%'}. Every transaction whose rows the snapshot sees was written to the binlog
 * before {@link #position()}, and every transaction written before it is seen (MariaDB takes both
 * under the same lock; Debezium's own snapshot relies on it). Once a CDC relay's committed position
 * is at or past {@link #position()}, every outbox row the snapshot sees was published.
 *
 * <p>MySQL has no such status variables ({@code performance_schema.log_status} is not tied to a
 * transaction's snapshot), so {@link #begin} refuses it. Stateless apart from what it read.
 */
public final class BinlogSnapshot {

  /**
   * A binlog file and byte offset. Positions compare by file sequence number, then offset.
   *
   * @param file the binlog file name, e.g. {@code mariadb-bin.000003}
   * @param pos the byte offset in it
   */
  public record Position(String file, long pos) {

    /**
     * Whether this position is at or after {@code other}.
     *
     * @param other the other position
     * @return empty when the two cannot be compared (files of different base names)
     */
    public Optional<Boolean> atOrAfter(Position other) {
      int dot = file.lastIndexOf('.');
      int otherDot = other.file.lastIndexOf('.');
      if (dot < 0
          || otherDot < 0
          || !file.substring(0, dot).equals(other.file.substring(0, otherDot))) {
        return Optional.empty();
      }
      try {
        long seq = Long.parseLong(file.substring(dot + 1));
        long otherSeq = Long.parseLong(other.file.substring(otherDot + 1));
        return Optional.of(seq != otherSeq ? seq > otherSeq : pos >= other.pos);
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }

    @Override
    public String toString() {
      return file + ":" + pos;
    }
  }

  private BinlogSnapshot() {}

  /**
   * Starts a consistent-snapshot transaction on {@code c} and returns the binlog position it
   * corresponds to. The transaction stays open: read what the snapshot sees, then end it.
   *
   * @param c a connection with auto-commit off and no transaction open, to MariaDB; left at
   *     REPEATABLE READ
   * @return the position
   * @throws SQLException when the server does not report a snapshot position (MySQL, or the binary
   *     log off)
   */
  public static Position begin(Connection c) throws SQLException {
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement st = c.createStatement()) {
      st.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
      String file = null;
      long pos = -1;
      try (ResultSet rs = st.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'")) {
        while (rs.next()) {
          String name = rs.getString(1);
          if (name.equalsIgnoreCase("Binlog_snapshot_file")) {
            file = rs.getString(2);
          } else if (name.equalsIgnoreCase("Binlog_snapshot_position")) {
            pos = Long.parseLong(rs.getString(2));
          }
        }
      }
      if (file == null || file.isEmpty() || pos < 0) {
        c.rollback();
        throw new SQLException(
            "the server reports no binlog_snapshot_file/binlog_snapshot_position: a consistent"
                + " snapshot with its binlog position needs MariaDB with the binary log on");
      }
      return new Position(file, pos);
    }
  }
}
