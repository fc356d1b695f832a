package io.outboxrelay.writer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.idempotency.spring.IdempotentListenerProperties;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.OutboxHeaders;
import org.junit.jupiter.api.Test;

/**
 * The starter's defaults are the outbox contract's, defined by the router. They are literals in the
 * properties classes only because Spring's metadata generator reads defaults from literals.
 */
class OutboxWriterPropertiesTest {

  @Test
  void theWritersDefaultsAreTheRoutersColumnMapping() {
    OutboxWriterProperties properties = new OutboxWriterProperties();
    OutboxWriterProperties.Columns columns = properties.getColumns();
    ColumnMapping contract = ColumnMapping.DEFAULT;

    assertThat(properties.getTable()).isEqualTo(ColumnMapping.DEFAULT_TABLE);
    assertThat(columns.getEventId()).isEqualTo(contract.eventId());
    assertThat(columns.getAggregateType()).isEqualTo(contract.aggregateType());
    assertThat(columns.getAggregateId()).isEqualTo(contract.aggregateId());
    assertThat(columns.getEventType()).isEqualTo(contract.eventType());
    assertThat(columns.getPayload()).isEqualTo(contract.payload());
    assertThat(columns.getAggregateVersion()).isEqualTo(contract.aggregateVersion());
    assertThat(columns.getHeaders()).isEqualTo(contract.headers());
  }

  @Test
  void theConsumersHeaderDefaultsAreTheRelaysHeaderNames() {
    IdempotentListenerProperties properties = new IdempotentListenerProperties();

    assertThat(properties.getIdHeader()).isEqualTo(OutboxHeaders.ID);
    assertThat(properties.getVersionHeader()).isEqualTo(OutboxHeaders.AGGREGATE_VERSION);
  }
}
