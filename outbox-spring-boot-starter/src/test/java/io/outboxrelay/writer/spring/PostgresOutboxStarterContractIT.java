package io.outboxrelay.writer.spring;

/** The starter's contract on PostgreSQL (the machine's local service). */
public class PostgresOutboxStarterContractIT extends AbstractOutboxStarterContractIT {

  @Override
  protected StarterDatabase newDatabase() {
    return StarterDatabase.postgres();
  }
}
