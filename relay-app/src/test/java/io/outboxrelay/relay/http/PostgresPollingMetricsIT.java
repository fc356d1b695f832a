package io.outboxrelay.relay.http;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;

/** The HTTP endpoint of a polling relay on the machine's PostgreSQL service. */
class PostgresPollingMetricsIT extends AbstractPollingMetricsIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.postgres();
  }

  @Override
  protected Ledger ledger(String topicPrefix) {
    return new Ledger(topicPrefix).semanticPayloads(); // jsonb normalises the payload's text
  }
}
