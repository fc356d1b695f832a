package io.outboxrelay.testsupport.outbox;

import io.outboxrelay.testsupport.database.Flavor;
import io.outboxrelay.testsupport.database.ScratchDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/**
 * A fresh database holding the outbox table and (on MariaDB/MySQL) the relay's position tables,
 * created from the project's own {@code config/<flavor>/*.sql} files, with an application user and
 * a relay user that get exactly the grants of {@code config/<flavor>/relay-grants.sql}. On
 * MariaDB/MySQL those are the CDC grants and {@link #grantPolling()} adds what polling mode needs;
 * the PostgreSQL grants are polling's. Dropped with its users on close.
 */
public final class OutboxDatabase implements SourceDatabase {

  private final ScratchDatabase db;
  private final String appUser;
  private final String relayUser;
  private final String userHost;
  private final String password = "pw-" + UUID.randomUUID();

  private OutboxDatabase(ScratchDatabase db, String userHost, int maxSuffix) {
    this.db = db;
    this.userHost = userHost;
    String name = db.name();
    String suffix = name.length() > maxSuffix ? name.substring(name.length() - maxSuffix) : name;
    this.appUser = "app_" + suffix;
    this.relayUser = "relay_" + suffix;
    db.dropAccountOnClose(appUser);
    db.dropAccountOnClose(relayUser);
  }

  /**
   * Creates the database, its tables and its users on a MariaDB or MySQL server.
   *
   * @param admin administrative connections
   * @param flavor {@link Flavor#MARIADB} or {@link Flavor#MYSQL}
   * @param host the host clients use
   * @param port the port clients use
   * @param userHost the host part of the users' accounts, e.g. {@code 127.0.0.1} or {@code %}
   * @return the database
   */
  public static OutboxDatabase create(
      ScratchDatabase.Admin admin, Flavor flavor, String host, int port, String userHost) {
    OutboxDatabase db =
        new OutboxDatabase(
            ScratchDatabase.onMySqlFamily(admin, flavor, host, port, "obx"), userHost, 20);
    db.setUp();
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
        server::adminConnection, Flavor.MARIADB, server.host(), server.port(), "127.0.0.1");
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

  /**
   * Creates the database, its table and its roles on the machine's PostgreSQL service.
   *
   * @return the database
   */
  public static OutboxDatabase postgres() {
    OutboxDatabase db =
        new OutboxDatabase(ScratchDatabase.onPostgres(PostgresService.local(), "obx"), null, 30);
    db.setUp();
    return db;
  }

  /**
   * Creates the database, its table and its roles on a private PostgreSQL server (logical decoding
   * on), for CDC tests.
   *
   * @param server the server
   * @return the database
   */
  public static OutboxDatabase on(PostgresServer server) {
    OutboxDatabase db =
        new OutboxDatabase(ScratchDatabase.onPostgres(server.service(), "obx"), null, 30);
    db.setUp();
    return db;
  }

  private void setUp() {
    try {
      String dir = db.flavor().configDir();
      db.runSqlFile(dir + "/outbox-schema.sql", sql -> sql);
      if (db.flavor() == Flavor.POSTGRESQL) {
        db.runSqlFile(dir + "/relay-grants.sql", this::postgresGrant);
      } else {
        db.runSqlFile(dir + "/relay-storage.sql", sql -> sql);
        db.runSqlFile(dir + "/relay-grants.sql", this::mySqlGrant);
      }
    } catch (RuntimeException e) {
      db.close();
      throw new IllegalStateException("cannot set up outbox database " + db, e);
    }
  }

  private String mySqlGrant(String sql) {
    String s =
        sql.replace("'app'@'%'", "'" + appUser + "'@'" + userHost + "'")
            .replace("'outbox_relay'@'%'", "'" + relayUser + "'@'" + userHost + "'")
            .replace("'change-me'", "'" + password + "'")
            .replace(" app.", " " + db.name() + ".");
    return db.flavor() == Flavor.MYSQL ? s.replace("BINLOG MONITOR", "REPLICATION CLIENT") : s;
  }

  private String postgresGrant(String sql) {
    return sql.replace("ROLE app ", "ROLE " + appUser + " ")
        .replace("TO app;", "TO " + appUser + ";")
        .replace("TO app", "TO " + appUser)
        .replace("outbox_relay", relayUser)
        .replace("'change-me'", "'" + password + "'");
  }

  @Override
  public String name() {
    return db.name();
  }

  @Override
  public Flavor flavor() {
    return db.flavor();
  }

  @Override
  public String host() {
    return db.host();
  }

  @Override
  public int port() {
    return db.port();
  }

  @Override
  public String relayUser() {
    return relayUser;
  }

  @Override
  public String password() {
    return password;
  }

  /** A JDBC URL for this database, without credentials. */
  public String jdbcUrl() {
    return db.jdbcUrl();
  }

  @Override
  public Connection app() throws SQLException {
    return appAt(jdbcUrl());
  }

  /** A connection as the application user to {@code url}, auto-commit off. */
  private Connection appAt(String url) throws SQLException {
    // PostgreSQL: stringtype=unspecified lets plain string parameters fill uuid and jsonb columns.
    String full = flavor() == Flavor.POSTGRESQL ? url + "?stringtype=unspecified" : url;
    Connection c = DriverManager.getConnection(full, appUser, password);
    c.setAutoCommit(false);
    return c;
  }

  /**
   * This database as the application reaches it at another address, e.g. a {@code TcpProxy} that
   * stands for a virtual IP moved to a promoted standby: {@link SourceDatabase#host()}, {@link
   * SourceDatabase#port()} and {@link SourceDatabase#app()} use that address; {@code admin} and
   * {@code adminQuery} go to the server directly. Closing the view does nothing: this database owns
   * the users and the database.
   *
   * @param host the host the application connects to
   * @param port its port
   * @return the view
   */
  public SourceDatabase through(String host, int port) {
    OutboxDatabase direct = this;
    return new SourceDatabase() {
      @Override
      public Flavor flavor() {
        return direct.flavor();
      }

      @Override
      public String host() {
        return host;
      }

      @Override
      public int port() {
        return port;
      }

      @Override
      public String name() {
        return direct.name();
      }

      @Override
      public String relayUser() {
        return direct.relayUser();
      }

      @Override
      public String password() {
        return direct.password();
      }

      @Override
      public Connection app() throws SQLException {
        return direct.appAt(flavor().jdbcPrefix() + host + ":" + port + "/" + name());
      }

      @Override
      public void admin(String... statements) {
        direct.admin(statements);
      }

      @Override
      public Object adminQuery(String sql) {
        return direct.adminQuery(sql);
      }

      @Override
      public void close() {
        // the direct database drops what it made
      }

      @Override
      public String toString() {
        return direct + " through " + host + ":" + port;
      }
    };
  }

  @Override
  public void admin(String... statements) {
    db.execute(statements);
  }

  @Override
  public Object adminQuery(String sql) {
    return db.queryValue(sql);
  }

  /**
   * Grants the relay user what polling mode needs, as {@code config/mysql/relay-grants.sql} says.
   * The PostgreSQL grants have it already.
   *
   * @return this database
   */
  public OutboxDatabase grantPolling() {
    if (flavor() != Flavor.POSTGRESQL) {
      admin(
          "GRANT SELECT, UPDATE, DELETE ON "
              + name()
              + ".outbox_events TO '"
              + relayUser
              + "'@'"
              + userHost
              + "'");
    }
    return this;
  }

  /**
   * Counts rows of the outbox table.
   *
   * @return the count
   */
  public long outboxRows() {
    return ((Number) adminQuery("SELECT COUNT(*) FROM outbox_events")).longValue();
  }

  @Override
  public void close() {
    db.close();
  }

  @Override
  public String toString() {
    return "outbox " + db;
  }
}
