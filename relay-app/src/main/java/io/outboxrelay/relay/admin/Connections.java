package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.SqlErrors;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Opens the commands' connection to the source database as the relay's user, and turns a failure
 * into one line: exit code 2 when the configuration is wrong (login refused, unknown host or
 * database), 1 when the database is down or unreachable. Stateless.
 */
final class Connections {

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
    SqlErrors.ConnectFailure failure = SqlErrors.connectFailure(e);
    if (failure == SqlErrors.ConnectFailure.UNKNOWN_HOST) {
      return AdminException.usage(
          "unknown host '" + source.host() + "': check source.host (" + where + ")", e);
    }
    if (failure == SqlErrors.ConnectFailure.NO_SUCH_DATABASE) {
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

  /** What a command does on its connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException, AdminException;
  }

  /**
   * Runs a command's work on a connection of its own (see {@link #open}), and closes it. On any
   * failure the transaction is rolled back first; a database failure becomes {@link #failed}.
   *
   * @param source where and who
   * @param what what the work does, for the message, e.g. {@code reading DEAD events from t}
   * @param needs what it needs, for the message
   * @param work the work
   * @return what the work returns
   * @throws AdminException when the connection cannot be opened or the work fails
   */
  static <T> T run(SourceConfig source, String what, String needs, Work<T> work)
      throws AdminException {
    try (Connection c = open(source)) {
      try {
        return work.run(c);
      } catch (SQLException e) {
        rollbackQuietly(c);
        throw failed(what, needs, e);
      } catch (AdminException | RuntimeException e) {
        rollbackQuietly(c);
        throw e;
      }
    } catch (SQLException e) {
      throw failed("closing the connection to " + source.describe(), needs, e);
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection is closed next; the transaction ends with it
    }
  }

  /**
   * A failure after connecting: exit 2 when the table or the user's rights are not what the command
   * needs (a missing table or column, a missing grant), 1 otherwise.
   *
   * @param what what the command was doing, e.g. {@code reading DEAD events from outbox_events}
   * @param needs what it needs, for the message
   */
  static AdminException failed(String what, String needs, SQLException e) {
    boolean setup = SqlErrors.isSetupProblem(e);
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
}
