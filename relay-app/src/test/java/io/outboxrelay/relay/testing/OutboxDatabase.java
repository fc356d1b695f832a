package io.outboxrelay.relay.testing;

import io.outboxrelay.localstack.LocalStack;
import io.outboxrelay.localstack.MariaDbServer;
import io.outboxrelay.localstack.ProjectFiles;
import io.outboxrelay.relay.config.SourceFlavor;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh MariaDB/MySQL database holding the outbox table and the relay's position tables, created
 * from the project's own {@code config/mysql/*.sql} files, with an application user and a relay
 * user that get exactly the grants of {@code config/mysql/relay-grants.sql} (CDC). {@link
 * #grantPolling()} adds what polling mode needs. Dropped on close.
 */
public final class OutboxDatabase implements SourceDatabase {

  /** Opens administrative connections to the server. */
  public interface Admin {
    /**
     * An administrative connection.
     *
     * @return a connection with rights to create databases and users
     * @throws SQLException when the server cannot be reached
     */
    Connection connect() throws SQLException;
  }

  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final Admin admin;
  private final SourceFlavor flavor;
  private final String host;
  private final int port;
  private final String name;
  private final String appUser;
  private final String relayUser;
  private final String password = "pw-" + UUID.randomUUID();
  private String userHost = "127.0.0.1";

  private OutboxDatabase(Admin admin, SourceFlavor flavor, String host, int port, String name) {
    this.admin = admin;
    this.flavor = flavor;
    this.host = host;
    this.port = port;
    this.name = name;
    String suffix = name.length() > 20 ? name.substring(name.length() - 20) : name;
    this.appUser = "app_" + suffix;
    this.relayUser = "relay_" + suffix;
  }

  /**
   * Creates the database, its tables and its users.
   *
   * @param admin administrative connections
   * @param flavor mariadb or mysql
   * @param host the host clients use
   * @param port the port clients use
   * @param userHost the host part of the users' accounts, e.g. {@code 127.0.0.1} or {@code %}
   * @return the database
   */
  public static OutboxDatabase create(
      Admin admin, SourceFlavor flavor, String host, int port, String userHost) {
    String name =
        "obx" + COUNTER.incrementAndGet() + "_" + Long.toHexString(System.nanoTime() & 0xffffffL);
    OutboxDatabase db = new OutboxDatabase(admin, flavor, host, port, name);
    db.setUp(userHost);
    return db;
  }

  /**
   * Creates a database on a private MariaDB reached over 127.0.0.1, with users for that host.
   *
   * @param server the server
   * @return the database
   */
  public static OutboxDatabase on(MariaDbServer server) {
    return create(
        server::adminConnection, SourceFlavor.MARIADB, server.host(), server.port(), "127.0.0.1");
  }

  /**
   * A database for polling mode on the shared test stack's private MariaDB: the relay user may also
   * update and delete outbox rows.
   *
   * @return the database
   */
  public static OutboxDatabase forPolling() {
    return on(LocalStack.shared().mariaDb()).grantPolling();
  }

  private void setUp(String userHost) {
    this.userHost = userHost;
    try (Connection c = admin.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
      st.execute("USE " + name);
      for (String sql : ProjectFiles.sqlStatements("config/mysql/outbox-schema.sql")) {
        st.execute(sql);
      }
      for (String sql : ProjectFiles.sqlStatements("config/mysql/relay-storage.sql")) {
        st.execute(sql);
      }
      for (String sql : ProjectFiles.sqlStatements("config/mysql/relay-grants.sql")) {
        String s =
            sql.replace("'app'@'%'", "'" + appUser + "'@'" + userHost + "'")
                .replace("'outbox_relay'@'%'", "'" + relayUser + "'@'" + userHost + "'")
                .replace("'change-me'", "'" + password + "'")
                .replace(" app.", " " + name + ".");
        if (flavor == SourceFlavor.MYSQL) {
          s = s.replace("BINLOG MONITOR", "REPLICATION CLIENT");
        }
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot set up outbox database " + name, e);
    }
  }

  /** The database name. */
  @Override
  public String name() {
    return name;
  }

  /** The flavor. */
  @Override
  public SourceFlavor flavor() {
    return flavor;
  }

  /** The host clients use. */
  @Override
  public String host() {
    return host;
  }

  /** The port clients use. */
  @Override
  public int port() {
    return port;
  }

  /** The relay's user. */
  @Override
  public String relayUser() {
    return relayUser;
  }

  /** The password of both users. */
  @Override
  public String password() {
    return password;
  }

  /** A JDBC URL for this database. */
  public String jdbcUrl() {
    return flavor.jdbcPrefix() + host + ":" + port + "/" + name;
  }

  /**
   * A connection as the application user, auto-commit off.
   *
   * @return the connection
   * @throws SQLException when the server cannot be reached
   */
  @Override
  public Connection app() throws SQLException {
    Connection c = DriverManager.getConnection(jdbcUrl(), appUser, password);
    c.setAutoCommit(false);
    return c;
  }

  /**
   * Runs statements as administrator in this database.
   *
   * @param statements the statements
   */
  @Override
  public void admin(String... statements) {
    try (Connection c = admin.connect();
        Statement st = c.createStatement()) {
      st.execute("USE " + name);
      for (String s : statements) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Grants the relay user what polling mode needs, as config/mysql/relay-grants.sql says. */
  public OutboxDatabase grantPolling() {
    admin(
        "GRANT SELECT, UPDATE, DELETE ON "
            + name
            + ".outbox_events TO '"
            + relayUser
            + "'@'"
            + userHost
            + "'");
    return this;
  }

  @Override
  public Object adminQuery(String sql) {
    try (Connection c = admin.connect();
        Statement st = c.createStatement()) {
      st.execute("USE " + name);
      try (var rs = st.executeQuery(sql)) {
        return rs.next() ? rs.getObject(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Counts rows of the outbox table.
   *
   * @return the count
   */
  public long outboxRows() {
    try (Connection c = admin.connect();
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM " + name + ".outbox_events")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try (Connection c = admin.connect();
        Statement st = c.createStatement()) {
      for (String sql :
          List.of(
              "DROP DATABASE IF EXISTS " + name,
              "DROP USER IF EXISTS '" + appUser + "'@'127.0.0.1', '" + appUser + "'@'%'",
              "DROP USER IF EXISTS '" + relayUser + "'@'127.0.0.1', '" + relayUser + "'@'%'")) {
        st.execute(sql);
      }
    } catch (SQLException e) {
      // best effort: the server may already be gone
    }
  }
}
