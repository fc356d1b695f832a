package io.outboxrelay.relay.source.polling;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;

/** The polling contract on the machine's PostgreSQL 15 service. */
class PostgresPollingContractIT extends AbstractPollingContractIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.postgres();
  }

  @Override
  protected Ledger ledger(String topicPrefix) {
    return new Ledger(topicPrefix).semanticPayloads();
  }
}
