package io.outboxrelay.writer;

import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.Dialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MariaDB's and MySQL's {@code max_allowed_packet}: the largest statement the server takes. A
 * statement above it is not refused with an error: the server drops the connection, and the driver
 * reports a socket error. So the writer measures each statement before sending it (see {@link
 * Row#packetBytes()}) against the limit it read from the server, and refuses an event that cannot
 * fit on its own, naming the limit; the connection stays usable. Stateless.
 */
final class PacketLimit {

  /** No limit: PostgreSQL's statements are bounded only by its 1 GB field size. */
  static final long NONE = Long.MAX_VALUE;

  /** Bytes of a statement beyond its rows: the INSERT's text, the packet and command headers. */
  static final long STATEMENT_OVERHEAD = 1024;

  private PacketLimit() {}

  /**
   * The session's {@code max_allowed_packet} on MariaDB and MySQL (fixed when the session started),
   * {@link #NONE} on PostgreSQL.
   */
  static long read(Connection c, Dialect dialect) throws SQLException {
    if (dialect != Dialect.MYSQL) {
      return NONE;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
      return rs.next() ? rs.getLong(1) : NONE;
    }
  }

  /** The refusal of a row that does not fit in one statement under {@code limit}. */
  static String problem(Row row, long limit) {
    return "the row is "
        + (row.packetBytes() + STATEMENT_OVERHEAD)
        + " bytes as sent (payload "
        + ApplicationHeaders.utf8Length(row.payload())
        + " bytes of UTF-8), more than the database's max_allowed_packet of "
        + limit
        + " bytes, which would drop the connection: make the payload smaller, or raise"
        + " max_allowed_packet on the server (SET GLOBAL max_allowed_packet = <bytes>, and in the"
        + " server's configuration file) and open new connections";
  }
}
