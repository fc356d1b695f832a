package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;

/** The CDC contract on a private MariaDB 10.11 with a binlog and a real KRaft broker. */
class MariaDbCdcContractIT extends AbstractCdcContractIT {

  @Override
  protected OutboxDatabase newDatabase() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    return OutboxDatabase.on(server);
  }

  @Override
  protected String bootstrapServers() {
    return LocalStack.shared().kafka().bootstrapServers();
  }
}
