package io.outboxrelay.testsupport.outbox;

import io.outboxrelay.testsupport.database.Flavor;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A fresh database holding the outbox table, created from the project's own {@code config/} DDL,
 * with an application user and a least-privilege relay user. Dropped on close.
 */
public interface SourceDatabase extends AutoCloseable {

  /** The flavor. */
  Flavor flavor();

  /** The host clients use. */
  String host();

  /** The port clients use. */
  int port();

  /** The database name. */
  String name();

  /** The relay's user. */
  String relayUser();

  /** The password of both users. */
  String password();

  /**
   * A connection as the application user, auto-commit off.
   *
   * @return the connection
   * @throws SQLException when the server cannot be reached
   */
  Connection app() throws SQLException;

  /**
   * Runs statements as administrator in this database.
   *
   * @param statements the statements
   */
  void admin(String... statements);

  /**
   * Runs a query as administrator and returns the first column of the first row.
   *
   * @param sql the query
   * @return the value, or null when there is no row
   */
  Object adminQuery(String sql);

  /** Drops the database and its users; never throws. */
  @Override
  void close();
}
