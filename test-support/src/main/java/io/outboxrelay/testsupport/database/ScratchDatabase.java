package io.outboxrelay.testsupport.database;

import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresDatabase;
import io.outboxrelay.testsupport.stack.PostgresService;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A database of one test: created with a unique name, and dropped on {@link #close()} together with
 * every account registered with {@link #dropAccountOnClose}. All work goes through an
 * administrative connection into this database.
 *
 * <pre>{@code
 * try (ScratchDatabase db = ScratchDatabase.onMariaDb(LocalStack.shared().mariaDb(), "orders")) {
 *   db.runSqlFile("config/mysql/outbox-schema.sql", sql -> sql);
 * } // dropped here
 * }</pre>
 *
 * <p>Thread-safe.
 */
public abstract class ScratchDatabase implements AutoCloseable {

  /** Opens administrative connections to a server. */
  @FunctionalInterface
  public interface Admin {
    /**
     * An administrative connection, without a default database.
     *
     * @return a connection with rights to create databases and users
     * @throws SQLException when the server cannot be reached
     */
    Connection connect() throws SQLException;
  }

  private static final Pattern PREFIX = Pattern.compile("[a-z0-9_]{1,40}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Connections kept at most: as many as threads of a test poll at once. */
  private static final int MAX_IDLE = 4;

  /**
   * How long a query waits for the server's answer: about as long as a new connection waited for a
   * frozen server's greeting.
   */
  private static final int QUERY_TIMEOUT_MILLIS = 30_000;

  private final Flavor flavor;
  private final String host;
  private final int port;
  private final String name;
  private final Set<String> accounts = ConcurrentHashMap.newKeySet();

  /**
   * Connections {@link #queryValue} used and keeps for the next query: tests poll with it every few
   * milliseconds, and a new connection per query cost about 4.6 ms of CPU on PostgreSQL (a backend
   * process each) and 1.2 ms on MariaDB, against well under one on an open connection.
   */
  private final Deque<Connection> idleConnections = new ArrayDeque<>();

  private boolean closed; // guarded by idleConnections

  private ScratchDatabase(Flavor flavor, String host, int port, String name) {
    this.flavor = flavor;
    this.host = host;
    this.port = port;
    this.name = name;
  }

  /**
   * Creates a database on a private MariaDB, administered over 127.0.0.1.
   *
   * @param server the server
   * @param prefix lower-case letters, digits and underscores, at most 40
   * @return the database
   */
  public static ScratchDatabase onMariaDb(MariaDbServer server, String prefix) {
    return onMySqlFamily(
        server::adminConnection, Flavor.MARIADB, server.host(), server.port(), prefix);
  }

  /**
   * Creates a database on a MariaDB or MySQL server (utf8mb4).
   *
   * @param admin administrative connections
   * @param flavor {@link Flavor#MARIADB} or {@link Flavor#MYSQL}
   * @param host the host clients use
   * @param port the port clients use
   * @param prefix lower-case letters, digits and underscores, at most 40
   * @return the database
   */
  public static ScratchDatabase onMySqlFamily(
      Admin admin, Flavor flavor, String host, int port, String prefix) {
    if (flavor == Flavor.POSTGRESQL) {
      throw new IllegalArgumentException("not a MySQL-family flavor: " + flavor);
    }
    MySqlFamily db = new MySqlFamily(admin, flavor, host, port, uniqueName(prefix));
    db.executeWithoutDatabase(
        "CREATE DATABASE `" + db.name() + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
    return db;
  }

  /**
   * Creates a database on a PostgreSQL service, owned by the service's user.
   *
   * @param service the service, e.g. {@link PostgresService#local()}
   * @param prefix lower-case letters, digits and underscores, at most 40
   * @return the database
   */
  public static ScratchDatabase onPostgres(PostgresService service, String prefix) {
    return new Postgres(service, service.createDatabase(checkPrefix(prefix)));
  }

  private static String uniqueName(String prefix) {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder name = new StringBuilder(checkPrefix(prefix)).append('_');
    for (int i = 0; i < 8; i++) {
      name.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return name.toString();
  }

  private static String checkPrefix(String prefix) {
    if (prefix == null || !PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "prefix must be 1-40 lower-case letters, digits or underscores: " + prefix);
    }
    return prefix;
  }

  /** The server's flavor. */
  public Flavor flavor() {
    return flavor;
  }

  /** The host clients use. */
  public String host() {
    return host;
  }

  /** The port clients use. */
  public int port() {
    return port;
  }

  /** The database name. */
  public String name() {
    return name;
  }

  /** A JDBC URL for this database, without credentials. */
  public String jdbcUrl() {
    return flavor.jdbcPrefix() + host + ":" + port + "/" + name;
  }

  /**
   * An administrative connection into this database, auto-commit on. The caller closes it.
   *
   * @return the connection
   * @throws SQLException when the server cannot be reached
   */
  public abstract Connection adminConnection() throws SQLException;

  /**
   * Runs statements as administrator in this database, in order.
   *
   * @param statements the statements
   * @throws IllegalStateException when one fails, naming it
   */
  public void execute(String... statements) {
    execute(List.of(statements));
  }

  private void execute(List<String> statements) {
    try (Connection c = adminConnection();
        Statement st = c.createStatement()) {
      for (String s : statements) {
        try {
          st.execute(s);
        } catch (SQLException e) {
          throw new IllegalStateException(name + ": " + s + ": " + e, e);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot connect to " + name + " as admin: " + e, e);
    }
  }

  /**
   * Runs a query as administrator and returns the first column of the first row. The query runs on
   * a connection kept from an earlier call where there is one (auto-commit on; a query must leave
   * no session state behind), or a new one; a kept connection the server closed since (a restart, a
   * kill) is replaced and the query run again, so queries are reads. A query waits at most 30 s for
   * the server's answer.
   *
   * @param sql the query
   * @return the value, or null when there is no row
   * @throws IllegalStateException when the query fails, naming it
   */
  public Object queryValue(String sql) {
    Connection idle = takeIdle();
    if (idle != null) {
      try {
        return valueAndGiveBack(idle, sql);
      } catch (SQLException e) {
        boolean broken = !isValid(idle);
        closeQuietly(idle);
        if (!broken) {
          throw new IllegalStateException(name + ": " + sql + ": " + e, e);
        }
        // The server restarted or cut the connection since its last query: a new one below.
      }
    }
    Connection c = null;
    try {
      c = adminConnection();
      c.setNetworkTimeout(Runnable::run, QUERY_TIMEOUT_MILLIS);
      return valueAndGiveBack(c, sql);
    } catch (SQLException e) {
      closeQuietly(c);
      throw new IllegalStateException(name + ": " + sql + ": " + e, e);
    }
  }

  private Object valueAndGiveBack(Connection c, String sql) throws SQLException {
    Object value;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      value = rs.next() ? rs.getObject(1) : null;
    }
    synchronized (idleConnections) {
      if (closed || idleConnections.size() >= MAX_IDLE) {
        closeQuietly(c);
      } else {
        idleConnections.push(c);
      }
    }
    return value;
  }

  private Connection takeIdle() {
    synchronized (idleConnections) {
      return idleConnections.poll();
    }
  }

  /** Closes the connections {@link #queryValue} keeps; called first by {@link #close()}. */
  final void closeIdleConnections() {
    synchronized (idleConnections) {
      closed = true;
      idleConnections.forEach(ScratchDatabase::closeQuietly);
      idleConnections.clear();
    }
  }

  private static boolean isValid(Connection c) {
    try {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  private static void closeQuietly(Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (SQLException e) {
      // already broken
    }
  }

  /**
   * Runs the statements of a project SQL file as administrator in this database.
   *
   * @param relative the file, e.g. {@code config/mysql/outbox-schema.sql}
   * @param rewrite applied to each statement first (names, passwords)
   */
  public void runSqlFile(String relative, UnaryOperator<String> rewrite) {
    execute(ProjectFiles.sqlStatements(relative).stream().map(rewrite).toList());
  }

  /**
   * Drops an account (a MySQL user at any host, a PostgreSQL role) when this database is dropped.
   *
   * @param user the user or role name
   */
  public void dropAccountOnClose(String user) {
    accounts.add(user);
  }

  /**
   * Drops the database and its accounts. On a MySQL-family server this is best effort and never
   * throws (a fault test may have killed the server); on PostgreSQL a failure to drop the database
   * is thrown.
   */
  @Override
  public abstract void close();

  /** Accounts to drop on close. */
  Set<String> accounts() {
    return accounts;
  }

  @Override
  public String toString() {
    return flavor.configName() + " database " + name + " on " + host + ":" + port;
  }

  /** A database on a MariaDB or MySQL server. */
  private static final class MySqlFamily extends ScratchDatabase {

    private final Admin admin;

    MySqlFamily(Admin admin, Flavor flavor, String host, int port, String name) {
      super(flavor, host, port, name);
      this.admin = admin;
    }

    @Override
    public Connection adminConnection() throws SQLException {
      Connection c = admin.connect();
      try (Statement st = c.createStatement()) {
        st.execute("USE `" + name() + "`");
      } catch (SQLException e) {
        c.close();
        throw e;
      }
      return c;
    }

    void executeWithoutDatabase(String... statements) {
      try (Connection c = admin.connect();
          Statement st = c.createStatement()) {
        for (String s : statements) {
          st.execute(s);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(String.join("; ", statements) + ": " + e, e);
      }
    }

    @Override
    public void close() {
      closeIdleConnections();
      try (Connection c = admin.connect();
          Statement st = c.createStatement()) {
        st.execute("DROP DATABASE IF EXISTS `" + name() + "`");
        for (String user : accounts()) {
          st.execute("DROP USER IF EXISTS '" + user + "'@'127.0.0.1', '" + user + "'@'%'");
        }
      } catch (SQLException e) {
        // best effort: the server may already be gone
      }
    }
  }

  /** A database on a PostgreSQL service. */
  private static final class Postgres extends ScratchDatabase {

    private final PostgresService service;
    private final PostgresDatabase database;

    Postgres(PostgresService service, PostgresDatabase database) {
      super(Flavor.POSTGRESQL, service.host(), service.port(), database.name());
      this.service = service;
      this.database = database;
    }

    @Override
    public Connection adminConnection() throws SQLException {
      Connection c = database.connection();
      c.setAutoCommit(true);
      return c;
    }

    /** Drops the database (a failure to drop it is thrown, as a test must not leave one behind). */
    @Override
    public void close() {
      closeIdleConnections();
      try {
        database.close();
      } finally {
        dropRoles();
      }
    }

    private void dropRoles() {
      if (accounts().isEmpty()) {
        return;
      }
      try (Connection c = service.connect("postgres");
          Statement st = c.createStatement()) {
        for (String role : accounts()) {
          st.execute("DROP ROLE IF EXISTS " + role);
        }
      } catch (SQLException e) {
        // best effort
      }
    }
  }
}
