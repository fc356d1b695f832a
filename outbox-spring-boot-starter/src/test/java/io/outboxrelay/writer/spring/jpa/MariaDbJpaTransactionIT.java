package io.outboxrelay.writer.spring.jpa;

import io.outboxrelay.writer.spring.StarterDatabase;

/** The outbox in a JPA transaction on MariaDB (the shared private server of the local stack). */
public class MariaDbJpaTransactionIT extends AbstractJpaTransactionIT {
  @Override
  protected StarterDatabase newDatabase() {
    return StarterDatabase.mariaDb();
  }
}
