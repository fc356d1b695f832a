package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.LocalStack;

/**
 * The CDC contract on a private PostgreSQL 15 with {@code wal_level=logical} (pgoutput, the relay's
 * publication and slot) and a real KRaft broker. The relay user creates the publication and its
 * tables itself. A {@code jsonb} payload is published as PostgreSQL renders it, so the ledger
 * compares payloads by meaning.
 */
class PostgresCdcContractIT extends AbstractCdcContractIT {

  @Override
  protected OutboxDatabase newDatabase() {
    return PostgresCdcDatabases.selfServing(PostgresCdcDatabases.server());
  }

  @Override
  protected String bootstrapServers() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  @Override
  protected RelaySettings settings() {
    return super.settings().without("cdc.server.id");
  }

  @Override
  protected Ledger ledger() {
    return super.ledger().semanticPayloads();
  }
}
