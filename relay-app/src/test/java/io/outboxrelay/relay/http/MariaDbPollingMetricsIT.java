package io.outboxrelay.relay.http;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;

/** The HTTP endpoint of a polling relay on the private MariaDB. */
class MariaDbPollingMetricsIT extends AbstractPollingMetricsIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.forPolling();
  }
}
