package io.outboxrelay.relay.source;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.SourceConfig;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Opens the relay's first connection to the source database and tells a configuration mistake from
 * a database that is down: a refused user, an unknown database or a host name that does not resolve
 * will not fix themselves by a restart, so they are startup check failures (exit 2) naming the key
 * to change; anything else (connection refused, a timeout) stays a runtime failure. Stateless.
 */
public final class SourceConnections {

  /** MariaDB/MySQL: access denied for user (wrong password or no such user). */
  private static final int ER_ACCESS_DENIED = 1045;

  /** MariaDB/MySQL: the user has no privileges on the database. */
  private static final int ER_DBACCESS_DENIED = 1044;

  /** MariaDB/MySQL: unknown database. */
  private static final int ER_BAD_DB = 1049;

  /** MariaDB/MySQL: this host is not allowed to connect. */
  private static final int ER_HOST_NOT_PRIVILEGED = 1130;

  private SourceConnections() {}

  /**
   * Opens a connection as the relay's user.
   *
   * @param source where the database is
   * @return the connection
   * @throws StartupCheckException when the configuration cannot work: one line saying what to
   *     change
   * @throws SQLException when the database cannot be reached for another reason
   */
  public static Connection open(SourceConfig source) throws StartupCheckException, SQLException {
    try {
      return DriverManager.getConnection(
          source.jdbcUrl(), source.user(), source.password().reveal());
    } catch (SQLException e) {
      String problem = configurationProblem(source, e);
      if (problem != null) {
        throw new StartupCheckException(List.of(problem));
      }
      throw e;
    }
  }

  /**
   * Says what to change when a connection failed because of the configuration.
   *
   * @param source where the database is
   * @param e the failure of a connection attempt
   * @return one line naming the keys to check, or {@code null} when the failure is not one of
   *     configuration (the database may be down or unreachable for now)
   */
  public static String configurationProblem(SourceConfig source, SQLException e) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof UnknownHostException) {
        return "source.host '"
            + source.host()
            + "' does not resolve to an address: check source.host (and the DNS of this host)";
      }
    }
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    int code = e.getErrorCode();
    String where = source.describe();
    // The server's words name the user and client host it saw; the driver's "(conn=12) " is noise.
    String said = " (" + String.valueOf(e.getMessage()).replaceFirst("^\\(conn=\\d+\\) ", "") + ")";
    // PostgreSQL: 28P01 invalid_password; 28000 no such role or no pg_hba.conf entry.
    if (code == ER_ACCESS_DENIED || state.equals("28P01") || state.equals("28000")) {
      return where
          + " refused user '"
          + source.user()
          + "' (wrong password, or no such user for this host): check source.user and"
          + " source.password"
          + said;
    }
    if (code == ER_HOST_NOT_PRIVILEGED) {
      return where
          + " does not accept connections from this host: create user '"
          + source.user()
          + "' for this host, or check source.host"
          + said;
    }
    if (code == ER_BAD_DB || state.equals("3D000")) {
      return "database '"
          + source.database()
          + "' does not exist on "
          + source.host()
          + ":"
          + source.port()
          + ": check source.database"
          + said;
    }
    if (code == ER_DBACCESS_DENIED) {
      return "user '"
          + source.user()
          + "' may not use database '"
          + source.database()
          + "': check source.database, or grant the user what config/*/relay-grants.sql grants"
          + said;
    }
    return null;
  }
}
