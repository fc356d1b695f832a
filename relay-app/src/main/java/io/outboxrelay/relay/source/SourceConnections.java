package io.outboxrelay.relay.source;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

/**
 * Opens the relay's first connection to the source database and tells a configuration mistake from
 * a database that is down: a refused user, an unknown database or a host name that does not resolve
 * will not fix themselves by a restart, so they are startup check failures (exit 2) naming the key
 * to change; anything else (connection refused, a timeout) stays a runtime failure. Which failure
 * is which is decided by {@link SqlErrors#connectFailure}. Stateless.
 */
public final class SourceConnections {

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
   * Closes a connection, if there is one, ignoring failures (it is probably broken already).
   *
   * @param connection the connection; may be null
   */
  public static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // already broken
      }
    }
  }

  /**
   * The failure of a source whose first connection failed for a reason that is not one of
   * configuration (the database is down or unreachable).
   *
   * @param source where the database is
   * @param e the failure
   * @return the failure that stops the relay, saying what to check
   */
  public static RelayFailure cannotConnect(SourceConfig source, SQLException e) {
    return new RelayFailure(
        "cannot connect to "
            + source.describe()
            + " as '"
            + source.user()
            + "': "
            + e.getMessage()
            + ". Check source.host, source.port, source.user and"
            + " source.password, and that the database is up",
        e);
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
    String where = source.describe();
    // The server's words name the user and client host it saw; the driver's "(conn=12) " is noise.
    String said = " (" + String.valueOf(e.getMessage()).replaceFirst("^\\(conn=\\d+\\) ", "") + ")";
    return switch (SqlErrors.connectFailure(e)) {
      case UNKNOWN_HOST ->
          "source.host '"
              + source.host()
              + "' does not resolve to an address: check source.host (and the DNS of this host)";
      case LOGIN_REFUSED ->
          where
              + " refused user '"
              + source.user()
              + "' (wrong password, or no such user for this host): check source.user and"
              + " source.password"
              + said;
      case HOST_NOT_ALLOWED ->
          where
              + " does not accept connections from this host: create user '"
              + source.user()
              + "' for this host, or check source.host"
              + said;
      case NO_SUCH_DATABASE ->
          "database '"
              + source.database()
              + "' does not exist on "
              + source.host()
              + ":"
              + source.port()
              + ": check source.database"
              + said;
      case DATABASE_DENIED ->
          "user '"
              + source.user()
              + "' may not use database '"
              + source.database()
              + "': check source.database, or grant the user what config/*/relay-grants.sql grants"
              + said;
      case OTHER -> null;
    };
  }
}
