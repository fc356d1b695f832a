package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The machine's PostgreSQL service (not a child process: it is started by {@code
 * scripts/ensure-prereqs.sh}), used to create throw-away databases.
 *
 * <pre>{@code
 * try (PostgresDatabase db = PostgresService.local().createDatabase("idempotency")) {
 *   try (Connection c = db.connection()) { ... }
 * } // dropped here
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class PostgresService {

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z0-9_]{1,40}");
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int CONNECT_TIMEOUT_SECONDS = 5;
  private static final long DROP_RETRY_NANOS = 10_000_000_000L;

  private final String host;
  private final int port;
  private final String user;
  private final String password;

  private PostgresService(String host, int port, String user, String password) {
    this.host = Objects.requireNonNull(host, "host");
    this.port = port;
    this.user = Objects.requireNonNull(user, "user");
    this.password = password;
  }

  /**
   * The local service: 127.0.0.1:5432, superuser {@code postgres}, trust authentication.
   *
   * @return the service
   * @throws LocalStackException "PostgreSQL is not running on 127.0.0.1:5432: run
   *     scripts/ensure-prereqs.sh" if nothing listens there
   */
  public static PostgresService local() {
    return at("127.0.0.1", 5432, "postgres", null);
  }

  /**
   * A service elsewhere.
   *
   * @param host the host
   * @param port the port
   * @param user a user allowed to create and drop databases
   * @param password its password, or {@code null}
   * @return the service
   * @throws LocalStackException if nothing listens at {@code host:port}
   */
  public static PostgresService at(String host, int port, String user, String password) {
    PostgresService service = new PostgresService(host, port, user, password);
    service.checkReachable();
    return service;
  }

  /**
   * Creates a database with a unique name owned by this service's user.
   *
   * @param prefix lower-case letters, digits and underscores, at most 40 characters
   * @return a handle; closing it drops the database
   * @throws LocalStackException if the database cannot be created
   */
  public PostgresDatabase createDatabase(String prefix) {
    if (prefix == null || !IDENTIFIER.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "prefix must be 1-40 lower-case letters, digits or underscores: " + prefix);
    }
    String name = prefix + "_" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
    executeInMaintenanceDb("CREATE DATABASE " + name);
    return new PostgresDatabase(this, name);
  }

  /** The host. */
  public String host() {
    return host;
  }

  /** The port. */
  public int port() {
    return port;
  }

  /** The user for all connections. */
  public String user() {
    return user;
  }

  /** The password, {@code null} with trust authentication. */
  public String password() {
    return password;
  }

  /**
   * A JDBC URL for a database on this service.
   *
   * @param database the database
   * @return {@code jdbc:postgresql://host:port/database}
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database;
  }

  /**
   * Opens a connection to a database of this service as its user. The caller closes it.
   *
   * @param database the database, e.g. {@code postgres}
   * @return a new connection
   * @throws SQLException if the server refuses it
   */
  public Connection connect(String database) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    if (password != null) {
      properties.setProperty("password", password);
    }
    properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
    return DriverManager.getConnection(jdbcUrl(database), properties);
  }

  /**
   * Drops a database: its backends and replication slots go first. A terminated walsender frees its
   * slot a moment later, so the sequence is retried briefly.
   */
  void dropDatabase(String name) {
    String[] sql = {
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
          + (" WHERE datname = '" + name + "' AND pid <> pg_backend_pid()"),
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
          + (" WHERE database = '" + name + "' AND NOT active"),
      "DROP DATABASE IF EXISTS " + name
    };
    long deadline = System.nanoTime() + DROP_RETRY_NANOS;
    while (true) {
      try {
        executeInMaintenanceDb(sql);
        return;
      } catch (LocalStackException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        ChildProcess.pauseBriefly();
      }
    }
  }

  private void executeInMaintenanceDb(String... sql) {
    try (Connection connection = connect("postgres");
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new LocalStackException(
          "PostgreSQL at " + host + ":" + port + " failed: " + String.join("; ", sql) + ": " + e,
          e);
    }
  }

  private void checkReachable() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_SECONDS * 1000);
    } catch (IOException e) {
      throw new LocalStackException(
          "PostgreSQL is not running on " + host + ":" + port + ": run scripts/ensure-prereqs.sh",
          e);
    }
  }

  @Override
  public String toString() {
    return "PostgresService[" + user + "@" + host + ":" + port + "]";
  }
}
