package io.outboxrelay.writer.spring.migration;

/** The shipped migrations on MariaDB (the shared private server of the local stack). */
public class MariaDbOutboxMigrationsIT extends AbstractOutboxMigrationsIT {

  @Override
  protected MigrationDatabase newDatabase() {
    return MigrationDatabase.mariaDb();
  }
}
