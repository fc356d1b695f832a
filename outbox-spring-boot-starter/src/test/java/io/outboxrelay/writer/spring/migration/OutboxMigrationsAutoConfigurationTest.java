package io.outboxrelay.writer.spring.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.database.SimpleDataSource;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** When the migrations load, and what a start without Flyway says; no database is reached. */
class OutboxMigrationsAutoConfigurationTest {

  private static DataSource unreachable() {
    return new SimpleDataSource("jdbc:mariadb://127.0.0.1:1/none", "u", "p");
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(OutboxMigrationsAutoConfiguration.class))
          .withBean(DataSource.class, OutboxMigrationsAutoConfigurationTest::unreachable);

  @Test
  void loadsNothingWithoutTheProperty() {
    runner.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(OutboxMigrations.class)
                .doesNotHaveBean(OutboxMigrationsProperties.class));
  }

  @Test
  void loadsNothingWithoutThePropertyWhenFlywayIsMissing() {
    runner
        .withClassLoader(new FilteredClassLoader(Flyway.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxMigrations.class));
  }

  @Test
  void failsTheStartNamingFlywayWhenThePropertyIsSetWithoutIt() {
    runner
        .withClassLoader(new FilteredClassLoader(Flyway.class))
        .withPropertyValues("outbox.migrations.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith("outbox.migrations.enabled=true needs Flyway")
                    .hasMessageContaining("org.flywaydb:flyway-mysql")
                    .hasMessageContaining("org.flywaydb:flyway-database-postgresql"));
  }

  @Test
  void failsTheStartWithOneLineNamingTheSetWhenTheDatabaseCannotBeReached() {
    runner
        .withPropertyValues("outbox.migrations.enabled=true")
        .run(
            context -> {
              Throwable failure = context.getStartupFailure();
              while (failure != null
                  && !String.valueOf(failure.getMessage()).startsWith("outbox migrations failed")) {
                failure = failure.getCause();
              }
              assertThat(failure).isNotNull();
              assertThat(failure.getMessage())
                  .startsWith("outbox migrations failed: cannot connect to the database")
                  .doesNotContain("\n");
            });
  }

  @Test
  void backsOffWithTwoDataSourcesAndNoPrimary() {
    runner
        .withBean("two", DataSource.class, OutboxMigrationsAutoConfigurationTest::unreachable)
        .withPropertyValues("outbox.migrations.enabled=true")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxMigrations.class));
  }

  @Test
  void runsNoSetWhenBothAreTurnedOff() {
    runner
        .withPropertyValues(
            "outbox.migrations.enabled=true",
            "outbox.migrations.outbox-table=false",
            "outbox.migrations.processed-events=false")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(OutboxMigrations.class));
  }
}
