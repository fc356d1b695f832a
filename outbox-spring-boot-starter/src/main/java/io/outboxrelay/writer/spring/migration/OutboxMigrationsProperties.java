package io.outboxrelay.writer.spring.migration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Whether the starter creates and upgrades its tables with the Flyway migrations it ships, under
 * {@code outbox.migrations}. Mutable, for binding only.
 */
@ConfigurationProperties(prefix = "outbox.migrations")
public class OutboxMigrationsProperties {

  /**
   * Whether to create and upgrade the tables at startup with the starter's Flyway migrations (each
   * set with its own history table). Needs Flyway and its module for the database.
   */
  private boolean enabled;

  /**
   * Whether the migrations include the outbox table (outbox_events; history outbox_schema_history).
   */
  private boolean outboxTable = true;

  /**
   * Whether the migrations include the idempotent consumer's tables (processed_events and
   * processed_aggregate_versions; history processed_events_schema_history).
   */
  private boolean processedEvents = true;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isOutboxTable() {
    return outboxTable;
  }

  public void setOutboxTable(boolean outboxTable) {
    this.outboxTable = outboxTable;
  }

  public boolean isProcessedEvents() {
    return processedEvents;
  }

  public void setProcessedEvents(boolean processedEvents) {
    this.processedEvents = processedEvents;
  }
}
