package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.testing.Ledger;
import io.outboxrelay.relay.testing.PostgresOutboxDatabase;
import io.outboxrelay.relay.testing.SourceDatabase;

/** The polling contract on the machine's PostgreSQL 15 service. */
class PostgresPollingContractIT extends AbstractPollingContractIT {

  @Override
  protected SourceDatabase newDatabase() {
    return PostgresOutboxDatabase.create();
  }

  @Override
  protected Ledger ledger(String topicPrefix) {
    return new Ledger(topicPrefix).semanticPayloads();
  }
}
