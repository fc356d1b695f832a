package io.outboxrelay.testsupport.stack;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A throw-away database on a {@link PostgresService}; {@link #close()} drops it.
 *
 * <p>Thread-safe.
 */
public final class PostgresDatabase implements AutoCloseable {

  private final PostgresService service;
  private final String name;
  private volatile boolean dropped;

  PostgresDatabase(PostgresService service, String name) {
    this.service = service;
    this.name = name;
  }

  /** The database name. */
  public String name() {
    return name;
  }

  /** A JDBC URL for the PostgreSQL driver: {@code jdbc:postgresql://host:port/name}. */
  public String jdbcUrl() {
    return service.jdbcUrl(name);
  }

  /** The user to connect as (the database's owner). */
  public String user() {
    return service.user();
  }

  /** The password, {@code null} with trust authentication. */
  public String password() {
    return service.password();
  }

  /**
   * Opens a connection to this database. The caller closes it.
   *
   * @return a new connection
   * @throws SQLException if the server refuses it
   */
  public Connection connection() throws SQLException {
    return service.connect(name);
  }

  /**
   * Drops the database, first terminating its connections and dropping its inactive replication
   * slots. Idempotent.
   *
   * @throws LocalStackException if the drop fails
   */
  @Override
  public synchronized void close() {
    if (!dropped) {
      service.dropDatabase(name);
      dropped = true;
    }
  }

  @Override
  public String toString() {
    return "PostgresDatabase[" + name + " on " + service + "]";
  }
}
