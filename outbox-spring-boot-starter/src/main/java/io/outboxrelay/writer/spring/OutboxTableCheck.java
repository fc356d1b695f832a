package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Checks the outbox table when the application starts: the database is of the configured dialect,
 * the table exists and has the columns the writer needs. A failure stops the start with one line
 * naming what is missing and the DDL file, instead of a {@code BadSqlGrammarException} at the first
 * request that appends. It runs after every singleton is created, so after Flyway, Liquibase or
 * {@code spring.sql.init} have created the table. A database that cannot be reached at start is
 * logged and left to the first append, as the connection pool itself does. Thread-safe (runs once).
 */
final class OutboxTableCheck implements SmartInitializingSingleton {

  private static final Log LOG = LogFactory.getLog(OutboxTableCheck.class);

  private final DataSource dataSource;
  private final OutboxWriter writer;

  OutboxTableCheck(DataSource dataSource, OutboxWriter writer) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.writer = Objects.requireNonNull(writer, "writer");
  }

  @Override
  public void afterSingletonsInstantiated() {
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "[outbox] cannot connect to check the outbox table at start ("
              + e.getMessage()
              + "); it is checked at the first append instead");
      return;
    }
    try (connection) {
      writer.checkTable(connection);
    } catch (SQLException | IllegalStateException | IllegalArgumentException e) {
      throw new IllegalStateException("outbox table check failed: " + e.getMessage(), e);
    }
  }
}
