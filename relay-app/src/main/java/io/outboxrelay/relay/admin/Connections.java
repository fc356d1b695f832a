package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.publish.Disposition;
import io.outboxrelay.relay.publish.ErrorClassifier;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Opens the commands' connection to the source database as the relay's user, and turns a failure
 * into one line: exit code 2 when the configuration is wrong (login refused, unknown host or
 * database), 1 when the database is down or unreachable. Stateless.
 */
final class Connections {

  /** MariaDB/MySQL: unknown database. */
  private static final int ER_BAD_DB_ERROR = 1049;

  /** PostgreSQL: the database does not exist. */
  private static final String INVALID_CATALOG_NAME = "3D000";

  private Connections() {}

  /**
   * A connection with auto-commit off, at READ COMMITTED, as the relay's own transactions run.
   *
   * @param source where and who
   * @return the connection
   * @throws AdminException when it cannot be opened
   */
  static Connection open(SourceConfig source) throws AdminException {
    try {
      Connection c =
          DriverManager.getConnection(source.jdbcUrl(), source.user(), source.password().reveal());
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      return c;
    } catch (SQLException e) {
      throw classify(source, e);
    }
  }

  static AdminException classify(SourceConfig source, SQLException e) {
    String where = source.describe();
    if (causedBy(e, UnknownHostException.class)) {
      return AdminException.usage(
          "unknown host '" + source.host() + "': check source.host (" + where + ")", e);
    }
    if (e.getErrorCode() == ER_BAD_DB_ERROR || INVALID_CATALOG_NAME.equals(e.getSQLState())) {
      return AdminException.usage(
          "database '"
              + source.database()
              + "' does not exist on "
              + where
              + ": check source.database",
          e);
    }
    if (ErrorClassifier.classify(e) == Disposition.STOP) {
      return AdminException.usage(
          "cannot log in to "
              + where
              + " as '"
              + source.user()
              + "': "
              + oneLine(e)
              + ". Check source.user and source.password",
          e);
    }
    return AdminException.failure(
        "cannot connect to "
            + where
            + " as '"
            + source.user()
            + "': "
            + oneLine(e)
            + ". Check that the database is up and reachable (source.host, source.port)",
        e);
  }

  /**
   * A failure after connecting: exit 2 when the table or the user's rights are not what the command
   * needs (a missing table or column, a missing grant), 1 otherwise.
   *
   * @param what what the command was doing, e.g. {@code reading DEAD events from outbox_events}
   * @param needs what it needs, for the message
   */
  static AdminException failed(String what, String needs, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    boolean setup =
        state.equals("42S02") // MariaDB/MySQL: no such table
            || state.equals("42S22") // no such column
            || state.equals("42P01") // PostgreSQL: no such table
            || state.equals("42703") // no such column
            || state.equals("42501") // PostgreSQL: insufficient privilege
            || e.getErrorCode() == 1142 // MariaDB/MySQL: command denied on table
            || e.getErrorCode() == 1227; // access denied, a privilege is needed
    String text = what + " failed, nothing was changed: " + oneLine(e);
    return setup
        ? AdminException.usage(text + ". " + needs, e)
        : AdminException.failure(text + ". Try again", e);
  }

  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    m = m.replace('\n', ' ').replace('\r', ' ');
    return m.length() > 300 ? m.substring(0, 300) + "..." : m;
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
