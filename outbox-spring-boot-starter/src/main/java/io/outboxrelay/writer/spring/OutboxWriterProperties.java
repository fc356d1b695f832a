package io.outboxrelay.writer.spring;

import io.outboxrelay.router.Dialect;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The auto-configured outbox writer's settings, under {@code outbox.writer}. The defaults are the
 * relay's table and column names, the router's {@code ColumnMapping} defaults. They are written out
 * here because Spring's configuration metadata generator takes defaults (and descriptions) from
 * literals only: {@link Columns} has one property per column the writer writes ({@code
 * OutboxColumn#written()}), named as the column's constant in camel case; {@code
 * OutboxAutoConfiguration} reads them by those names, and {@code OutboxWriterPropertiesTest} fails
 * when one is missing or its default differs from the router's. Mutable, for binding only.
 */
@ConfigurationProperties(prefix = "outbox.writer")
public class OutboxWriterProperties {

  /** Whether to auto-configure the Outbox bean. */
  private boolean enabled = true;

  /** The outbox table, optionally schema-qualified; quoted in SQL, so spelled as in the catalog. */
  private String table = "outbox_events";

  /**
   * Whether to write the current OpenTelemetry trace context (traceparent, tracestate, baggage)
   * into the headers of each event, when the OpenTelemetry API is on the classpath.
   */
  private boolean traceContext = true;

  /** What serialises payload objects when the application defines no PayloadSerializer bean. */
  private SerializerChoice serializer = SerializerChoice.AUTO;

  /** The SQL dialect; detected from the connection when not set. */
  private Dialect dialect;

  /** The column names. */
  private final Columns columns = new Columns();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getTable() {
    return table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  public boolean isTraceContext() {
    return traceContext;
  }

  public void setTraceContext(boolean traceContext) {
    this.traceContext = traceContext;
  }

  public SerializerChoice getSerializer() {
    return serializer;
  }

  public void setSerializer(SerializerChoice serializer) {
    this.serializer = serializer;
  }

  public Dialect getDialect() {
    return dialect;
  }

  public void setDialect(Dialect dialect) {
    this.dialect = dialect;
  }

  public Columns getColumns() {
    return columns;
  }

  /** The outbox table's column names. */
  public static class Columns {

    /** The event id column. */
    private String eventId = "event_id";

    /** The aggregate type column. */
    private String aggregateType = "aggregate_type";

    /** The aggregate id column. */
    private String aggregateId = "aggregate_id";

    /** The event type column. */
    private String eventType = "event_type";

    /** The payload column. */
    private String payload = "payload";

    /**
     * The optional aggregate version column, written when the table has it; empty never writes one.
     */
    private String aggregateVersion = "aggregate_version";

    /** The optional headers column, written when the table has it; empty never writes one. */
    private String headers = "headers";

    public String getEventId() {
      return eventId;
    }

    public void setEventId(String eventId) {
      this.eventId = eventId;
    }

    public String getAggregateType() {
      return aggregateType;
    }

    public void setAggregateType(String aggregateType) {
      this.aggregateType = aggregateType;
    }

    public String getAggregateId() {
      return aggregateId;
    }

    public void setAggregateId(String aggregateId) {
      this.aggregateId = aggregateId;
    }

    public String getEventType() {
      return eventType;
    }

    public void setEventType(String eventType) {
      this.eventType = eventType;
    }

    public String getPayload() {
      return payload;
    }

    public void setPayload(String payload) {
      this.payload = payload;
    }

    public String getAggregateVersion() {
      return aggregateVersion;
    }

    public void setAggregateVersion(String aggregateVersion) {
      this.aggregateVersion = aggregateVersion;
    }

    public String getHeaders() {
      return headers;
    }

    public void setHeaders(String headers) {
      this.headers = headers;
    }
  }
}
