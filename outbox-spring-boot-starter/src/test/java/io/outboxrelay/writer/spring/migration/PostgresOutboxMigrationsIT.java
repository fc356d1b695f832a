package io.outboxrelay.writer.spring.migration;

/** The shipped migrations on PostgreSQL (the machine's local service). */
public class PostgresOutboxMigrationsIT extends AbstractOutboxMigrationsIT {

  @Override
  protected MigrationDatabase newDatabase() {
    return MigrationDatabase.postgres();
  }
}
