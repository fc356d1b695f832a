package io.outboxrelay.idempotency;

import io.outboxrelay.idempotency.testing.TestDatabase;

/** The idempotency contract on PostgreSQL (the machine's local service). */
class PostgresIdempotencyContractIT extends AbstractIdempotencyContractIT {

  @Override
  protected TestDatabase newDatabase() {
    return TestDatabase.postgres("idem");
  }
}
