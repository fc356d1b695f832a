package io.outboxrelay.examples;

import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * The notification service's own database on the demo's MariaDB server: the tables of {@code
 * config/mysql/processed-events.sql} and {@code config/examples/notifications-schema.sql}, and a
 * user that may change only this database. Dropped with its user on close. Not thread-safe.
 */
final class NotificationDatabase implements AutoCloseable {

  private final MariaDbServer server;
  private final String name;
  private final String user;
  private final DataSource dataSource;

  private NotificationDatabase(
      MariaDbServer server, String name, String user, DataSource dataSource) {
    this.server = server;
    this.name = name;
    this.user = user;
    this.dataSource = dataSource;
  }

  /** Creates the database, its tables and its user. */
  static NotificationDatabase create(MariaDbServer server) throws SQLException {
    String name = server.createDatabase("notifications");
    String user = "notif_" + name.substring(name.lastIndexOf('_') + 1);
    String password = "pw-" + UUID.randomUUID();
    try {
      List<String> ddl = new ArrayList<>();
      ddl.addAll(ProjectFiles.sqlStatements("config/mysql/processed-events.sql"));
      ddl.addAll(ProjectFiles.sqlStatements("config/examples/notifications-schema.sql"));
      server.execute(name, ddl.toArray(String[]::new));
      server.createUser(user, password, "SELECT, INSERT, UPDATE, DELETE ON `" + name + "`.*");
      MariaDbDataSource dataSource = new MariaDbDataSource(server.jdbcUrl(name));
      dataSource.setUser(user);
      dataSource.setPassword(password);
      return new NotificationDatabase(server, name, user, dataSource);
    } catch (SQLException | RuntimeException e) {
      server.execute(null, "DROP DATABASE IF EXISTS `" + name + "`");
      throw e;
    }
  }

  /** The database name. */
  String name() {
    return name;
  }

  /** The service's user. */
  String user() {
    return user;
  }

  /** Connections as the service's user (a new connection per call, no pool). */
  DataSource dataSource() {
    return dataSource;
  }

  @Override
  public void close() {
    try {
      server.execute(
          null,
          "DROP DATABASE IF EXISTS `" + name + "`",
          "DROP USER IF EXISTS '" + user + "'@'127.0.0.1'");
    } catch (RuntimeException e) {
      // best effort: the server may already be gone
    }
  }
}
