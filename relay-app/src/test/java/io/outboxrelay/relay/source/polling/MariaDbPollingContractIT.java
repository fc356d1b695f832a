package io.outboxrelay.relay.source.polling;

import io.outboxrelay.localstack.LocalStack;
import io.outboxrelay.localstack.MariaDbServer;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.testing.Ledger;
import io.outboxrelay.relay.testing.OutboxDatabase;
import io.outboxrelay.relay.testing.SourceDatabase;

/** The polling contract on a private MariaDB 10.11. */
class MariaDbPollingContractIT extends AbstractPollingContractIT {

  @Override
  protected SourceDatabase newDatabase() {
    MariaDbServer s = LocalStack.shared().mariaDb();
    return OutboxDatabase.create(
            s::adminConnection, SourceFlavor.MARIADB, s.host(), s.port(), "127.0.0.1")
        .grantPolling();
  }

  @Override
  protected Ledger ledger(String topicPrefix) {
    return new Ledger(topicPrefix);
  }
}
