package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.testing.OutboxDatabase;
import io.outboxrelay.relay.testing.SourceDatabase;

/** The operator commands on a private MariaDB 10.11. */
class MariaDbAdminCommandsIT extends AbstractAdminCommandsIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.forPolling();
  }
}
