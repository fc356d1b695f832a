package io.outboxrelay.router;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which columns of the outbox table hold what the router reads: the relay's and the Kafka Connect
 * transform's readers take the values from these columns, so that a table laid out otherwise (such
 * as Debezium's outbox table, {@code id}, {@code aggregatetype}, {@code aggregateid}, {@code type},
 * {@code payload}) publishes the same records. The first five are required; the next three are
 * optional, read when the table has them; the placements are further columns published as headers.
 * Immutable.
 *
 * @param eventId the event id, the header {@code id}; default {@code event_id}
 * @param aggregateType the aggregate type (topic); default {@code aggregate_type}
 * @param aggregateId the aggregate id (key); default {@code aggregate_id}
 * @param eventType the event type; default {@code event_type}
 * @param payload the payload (value); default {@code payload}
 * @param aggregateVersion optional: the aggregate version; default {@code aggregate_version}
 * @param headers optional: the application headers ({@link ApplicationHeaders}); default {@code
 *     headers}
 * @param traceContext optional: the W3C trace context ({@link TraceContext}); default {@code
 *     tracingspancontext}, Debezium's column
 * @param placements further columns published as headers, in this order; never null
 */
public record ColumnMapping(
    String eventId,
    String aggregateType,
    String aggregateId,
    String eventType,
    String payload,
    String aggregateVersion,
    String headers,
    String traceContext,
    List<HeaderPlacement> placements) {

  /** The relay's outbox table ({@code config/mysql/outbox-schema.sql}). */
  public static final String DEFAULT_TABLE = "outbox_events";

  /**
   * The relay's integer column that orders the rows (assigned at insert): the relay's sequence
   * column and the row id the change reader names rows by. Not part of the mapping: only readers
   * use it, the writer leaves it to the database.
   */
  public static final String DEFAULT_SEQUENCE = "id";

  /** The default {@link #eventId} column. */
  public static final String DEFAULT_EVENT_ID = "event_id";

  /** The default {@link #aggregateType} column. */
  public static final String DEFAULT_AGGREGATE_TYPE = "aggregate_type";

  /** The default {@link #aggregateId} column. */
  public static final String DEFAULT_AGGREGATE_ID = "aggregate_id";

  /** The default {@link #eventType} column. */
  public static final String DEFAULT_EVENT_TYPE = "event_type";

  /** The default {@link #payload} column. */
  public static final String DEFAULT_PAYLOAD = "payload";

  /** The default {@link #aggregateVersion} column. */
  public static final String DEFAULT_AGGREGATE_VERSION = "aggregate_version";

  /** The default {@link #headers} column. */
  public static final String DEFAULT_HEADERS = "headers";

  /** The default {@link #traceContext} column: Debezium's. */
  public static final String DEFAULT_TRACE_CONTEXT = "tracingspancontext";

  /**
   * The relay's own table layout ({@code config/mysql/outbox-schema.sql}): the {@code DEFAULT_*}
   * column names, no placements. Every module reads its defaults from here (or from those
   * constants, where a compile-time constant is needed).
   */
  public static final ColumnMapping DEFAULT =
      new ColumnMapping(
          DEFAULT_EVENT_ID,
          DEFAULT_AGGREGATE_TYPE,
          DEFAULT_AGGREGATE_ID,
          DEFAULT_EVENT_TYPE,
          DEFAULT_PAYLOAD,
          DEFAULT_AGGREGATE_VERSION,
          DEFAULT_HEADERS,
          DEFAULT_TRACE_CONTEXT,
          List.of());

  /**
   * Checks the fields and freezes the placements.
   *
   * @throws NullPointerException when a column name or the placements are null
   * @throws IllegalArgumentException when a column name is blank
   */
  public ColumnMapping {
    for (String column :
        new String[] {
          eventId,
          aggregateType,
          aggregateId,
          eventType,
          payload,
          aggregateVersion,
          headers,
          traceContext
        }) {
      Objects.requireNonNull(column, "column");
      if (column.isBlank()) {
        throw new IllegalArgumentException("a column name is blank");
      }
    }
    placements = List.copyOf(placements);
  }

  /**
   * The columns every row must have: event id, aggregate type, aggregate id, event type, payload,
   * then the placed columns.
   *
   * @return the names, in that order
   */
  public List<String> requiredColumns() {
    List<String> columns =
        new ArrayList<>(List.of(eventId, aggregateType, aggregateId, eventType, payload));
    placements.forEach(p -> columns.add(p.column()));
    return columns;
  }

  /**
   * The optional columns, read when the table has them: aggregate version, headers, trace context.
   *
   * @return the names, in that order
   */
  public List<String> optionalColumns() {
    return List.of(aggregateVersion, headers, traceContext);
  }
}
