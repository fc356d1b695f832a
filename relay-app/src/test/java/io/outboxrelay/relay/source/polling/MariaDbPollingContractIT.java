package io.outboxrelay.relay.source.polling;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;

/** The polling contract on a private MariaDB 10.11. */
class MariaDbPollingContractIT extends AbstractPollingContractIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.forPolling();
  }

  @Override
  protected Ledger ledger(String topicPrefix) {
    return new Ledger(topicPrefix);
  }
}
