package io.outboxrelay.writer.spring.migration;

import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ResourceLoader;

/**
 * Creates and upgrades the outbox table and the idempotent consumer's tables at startup with the
 * Flyway migrations the starter ships, when {@code outbox.migrations.enabled=true} and the
 * application has a single (or primary) {@code DataSource}. Nothing of it loads without the
 * property; with the property but without Flyway on the classpath the start fails naming the
 * dependency, rather than leaving the tables missing.
 *
 * <p>Each set of migrations ({@link MigrationSet}) has its own history table, so the application's
 * own Flyway migrations keep their versions and their {@code flyway_schema_history}; the sets run
 * after the application's Flyway, Liquibase and SQL scripts ({@link OutboxMigrationsDetector}).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
    })
@ConditionalOnClass(DataSource.class)
@ConditionalOnProperty(prefix = "outbox.migrations", name = "enabled", havingValue = "true")
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(OutboxMigrationsProperties.class)
public class OutboxMigrationsAutoConfiguration {

  static final String FLYWAY = "org.flywaydb.core.Flyway";

  /** Creates the auto-configuration; Spring does. */
  public OutboxMigrationsAutoConfiguration() {}

  /** The migrations, where Flyway is on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = FLYWAY)
  static class FlywayMigrations {

    @Bean
    OutboxMigrations outboxMigrations(
        DataSource dataSource,
        OutboxMigrationsProperties properties,
        ResourceLoader resourceLoader) {
      List<MigrationSet> sets = new ArrayList<>();
      if (properties.isOutboxTable()) {
        sets.add(MigrationSet.OUTBOX);
      }
      if (properties.isProcessedEvents()) {
        sets.add(MigrationSet.PROCESSED_EVENTS);
      }
      ClassLoader classLoader = resourceLoader.getClassLoader();
      return new OutboxMigrations(
          dataSource,
          sets,
          classLoader != null ? classLoader : OutboxMigrations.class.getClassLoader());
    }

    /**
     * Orders database initialisers and their users (Spring Boot's own auto-configurations import it
     * as well; importing it twice is harmless). Its class is in spring-boot on Boot 3 and in
     * spring-boot-sql on Boot 4, which spring-boot-jdbc brings.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
        name =
            "org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer")
    @Import(DatabaseInitializationDependencyConfigurer.class)
    static class Ordering {}
  }

  /** Without Flyway: a start that fails, naming the dependency. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass(FLYWAY)
  static class FlywayMissing {

    static final String MESSAGE =
        "outbox.migrations.enabled=true needs Flyway on the classpath: add org.flywaydb:flyway-core"
            + " and Flyway's module for the database, org.flywaydb:flyway-mysql (MariaDB, MySQL)"
            + " or org.flywaydb:flyway-database-postgresql (versions managed by Spring Boot), or"
            + " create the tables from config/<dialect>/outbox-schema.sql and"
            + " processed-events.sql and remove the property";

    @Bean
    Object outboxMigrationsNeedFlyway() {
      throw new IllegalStateException(MESSAGE);
    }
  }
}
