package io.outboxrelay.writer.spring.migration;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Tells Spring Boot that the starter's migrations initialise the database: beans that use the
 * database ({@code JdbcTemplate}, JPA, jOOQ, {@code @DependsOnDatabaseInitialization}) wait for
 * them, and they wait for the application's own Flyway, Liquibase and {@code spring.sql.init},
 * whose detectors come earlier. Running after the application's Flyway matters: a Flyway without a
 * history table refuses a schema that already holds tables, such as the outbox table. Registered in
 * {@code META-INF/spring.factories}; instantiated by Spring Boot.
 */
public final class OutboxMigrationsDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

  /** Creates the detector; Spring Boot does. */
  public OutboxMigrationsDetector() {}

  @Override
  protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
    // OutboxMigrations uses Flyway; without it there is no such bean, and the class stays unloaded.
    return ClassUtils.isPresent("org.flywaydb.core.Flyway", getClass().getClassLoader())
        ? Set.of(OutboxMigrations.class)
        : Set.of();
  }

  /** After the application's own schema tools (Flyway and Liquibase at 0 and 1, SQL scripts). */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE - 50;
  }
}
