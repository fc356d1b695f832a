package io.outboxrelay.writer.spring.jpa;

import io.outboxrelay.writer.spring.StarterDatabase;

/** The outbox in a JPA transaction on PostgreSQL (the machine's local service). */
public class PostgresJpaTransactionIT extends AbstractJpaTransactionIT {
  @Override
  protected StarterDatabase newDatabase() {
    return StarterDatabase.postgres();
  }
}
