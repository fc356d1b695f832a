package io.outboxrelay.idempotency.spring;

import io.outboxrelay.idempotency.GapPolicy;
import io.outboxrelay.router.Dialect;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The settings of {@link IdempotentListener} listeners, under {@code outbox.consumer}. The defaults
 * are consumer-idempotency's (its tables, the relay's headers). Mutable, for binding only.
 */
@ConfigurationProperties(prefix = "outbox.consumer")
public class IdempotentListenerProperties {

  /** The processed-events table, optionally schema-qualified. */
  private String processedEventsTable = "processed_events";

  /** The aggregate-versions table of the version check, optionally schema-qualified. */
  private String aggregateVersionsTable = "processed_aggregate_versions";

  /** The record header holding the event id. */
  private String idHeader = "id";

  /**
   * The record header holding the aggregate version (decimal text); empty ignores versions, so the
   * version check never applies.
   */
  private String versionHeader = "aggregate_version";

  /**
   * Whether to record each event's payload hash and fail an event whose id was already processed
   * with another payload (needs the payload_hash column).
   */
  private boolean conflictCheck;

  /**
   * Whether each delivery gets a consumer span that continues the record's traceparent: an
   * OpenTelemetry CONSUMER span, or under Micrometer Tracing spring-kafka's observation of the
   * record (turned on for the listener's container).
   */
  private boolean tracing = true;

  /**
   * The bean name of the transaction manager the listeners' transactions run on; by default the
   * application's single (or primary) one.
   */
  private String transactionManager;

  /** The SQL dialect of processed_events; detected from the connection when not set. */
  private Dialect dialect;

  /** The per-aggregate version check. */
  private final VersionCheck versionCheck = new VersionCheck();

  public String getProcessedEventsTable() {
    return processedEventsTable;
  }

  public void setProcessedEventsTable(String processedEventsTable) {
    this.processedEventsTable = processedEventsTable;
  }

  public String getAggregateVersionsTable() {
    return aggregateVersionsTable;
  }

  public void setAggregateVersionsTable(String aggregateVersionsTable) {
    this.aggregateVersionsTable = aggregateVersionsTable;
  }

  public String getIdHeader() {
    return idHeader;
  }

  public void setIdHeader(String idHeader) {
    this.idHeader = idHeader;
  }

  public String getVersionHeader() {
    return versionHeader;
  }

  public void setVersionHeader(String versionHeader) {
    this.versionHeader = versionHeader;
  }

  public boolean isConflictCheck() {
    return conflictCheck;
  }

  public void setConflictCheck(boolean conflictCheck) {
    this.conflictCheck = conflictCheck;
  }

  public boolean isTracing() {
    return tracing;
  }

  public void setTracing(boolean tracing) {
    this.tracing = tracing;
  }

  public String getTransactionManager() {
    return transactionManager;
  }

  public void setTransactionManager(String transactionManager) {
    this.transactionManager = transactionManager;
  }

  public Dialect getDialect() {
    return dialect;
  }

  public void setDialect(Dialect dialect) {
    this.dialect = dialect;
  }

  public VersionCheck getVersionCheck() {
    return versionCheck;
  }

  /** The per-aggregate version check (consumer-idempotency's {@code versionCheck(GapPolicy)}). */
  public static class VersionCheck {

    /**
     * Whether to skip events whose aggregate version is not above the aggregate's last applied one
     * (needs the processed_aggregate_versions table).
     */
    private boolean enabled;

    /** What to do with a version that skips ahead: apply it (accept) or fail and retry (reject). */
    private GapPolicy gapPolicy = GapPolicy.ACCEPT;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public GapPolicy getGapPolicy() {
      return gapPolicy;
    }

    public void setGapPolicy(GapPolicy gapPolicy) {
      this.gapPolicy = gapPolicy;
    }
  }
}
