package io.outboxrelay.writer.spring.migration;

import io.outboxrelay.router.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;
import org.springframework.beans.factory.InitializingBean;

/**
 * Runs the shipped migrations when the bean is initialised: for each {@link MigrationSet}, a Flyway
 * of its own on the application's {@code DataSource}, with the set's scripts for the database's
 * dialect and the set's history table. A database that already holds other tables but no such
 * history table is baselined at version 0, so that every script runs; the scripts create only what
 * is missing. A failure stops the start with one line naming the set. Runs once; not for concurrent
 * use.
 */
final class OutboxMigrations implements InitializingBean {

  private static final Log LOG = LogFactory.getLog(OutboxMigrations.class);

  private final DataSource dataSource;
  private final List<MigrationSet> sets;
  private final ClassLoader classLoader;

  OutboxMigrations(DataSource dataSource, List<MigrationSet> sets, ClassLoader classLoader) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.sets = List.copyOf(sets);
    this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
  }

  @Override
  public void afterPropertiesSet() {
    if (sets.isEmpty()) {
      return;
    }
    Dialect dialect = dialect();
    for (MigrationSet set : sets) {
      migrate(set, dialect);
    }
  }

  private Dialect dialect() {
    try (Connection connection = dataSource.getConnection()) {
      return Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
    } catch (SQLException e) {
      throw new IllegalStateException(
          "outbox migrations failed: cannot connect to the database: " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("outbox migrations failed: " + e.getMessage(), e);
    }
  }

  private void migrate(MigrationSet set, Dialect dialect) {
    String location = set.location(dialect);
    Flyway flyway =
        Flyway.configure(classLoader)
            .dataSource(dataSource)
            .locations(location)
            .table(set.historyTable())
            // The application's tables are there (its own migrations ran first): start below V1.
            .baselineOnMigrate(true)
            .baselineVersion("0")
            // Flyway writes it into its SQL unescaped: no quotes.
            .baselineDescription("before the outbox-relay migrations")
            .placeholderReplacement(false)
            .load();
    MigrateResult result;
    try {
      result = flyway.migrate();
    } catch (FlywayException e) {
      throw new IllegalStateException(
          "outbox migrations of "
              + set.description()
              + " ("
              + location
              + ", history table "
              + set.historyTable()
              + ") failed: "
              + String.valueOf(e.getMessage()).strip().replaceAll("\\s+", " ")
              + hint(e),
          e);
    }
    LOG.info(
        "[outbox] migrations of "
            + set.description()
            + ": "
            + result.migrationsExecuted
            + " applied, schema version "
            + (result.targetSchemaVersion != null
                ? result.targetSchemaVersion
                : result.initialSchemaVersion)
            + " ("
            + set.historyTable()
            + ")");
  }

  private static String hint(FlywayException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("Unsupported Database")
        ? ": add Flyway's module for the database, org.flywaydb:flyway-mysql (MariaDB, MySQL) or"
            + " org.flywaydb:flyway-database-postgresql"
        : "";
  }
}
