package io.outboxrelay.idempotency;

import io.outboxrelay.idempotency.testing.TestDatabase;

/** The idempotency contract on MariaDB (the shared private server of the local stack). */
class MariaDbIdempotencyContractIT extends AbstractIdempotencyContractIT {

  @Override
  protected TestDatabase newDatabase() {
    return TestDatabase.mariaDb("idem");
  }
}
