package io.outboxrelay.router;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which columns of the outbox table hold what the router reads: the relay's and the Kafka Connect
 * transform's readers take the values from these columns, so that a table laid out otherwise (such
 * as Debezium's outbox table, {@code id}, {@code aggregatetype}, {@code aggregateid}, {@code type},
 * {@code payload}) publishes the same records. The columns themselves (which are required, what
 * they hold, their default names) are declared once, in {@link OutboxColumn}; a mapping names each
 * of them ({@link #column}), and adds the placements: further columns published as headers.
 * Immutable; equal when every name and placement is.
 */
public final class ColumnMapping {

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
   * The relay's own table layout ({@code config/mysql/outbox-schema.sql}): every column by its
   * {@link OutboxColumn#defaultName()}, no placements. Every module reads its defaults from here
   * (or from those constants, where a compile-time constant is needed).
   */
  public static final ColumnMapping DEFAULT = of(Map.of(), List.of());

  private final Map<OutboxColumn, String> names;
  private final List<HeaderPlacement> placements;

  /**
   * A mapping of every column the constructor names; a column declared later in {@link
   * OutboxColumn} has its default name (set it with {@link #with}).
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
   * @throws NullPointerException when a column name or the placements are null
   * @throws IllegalArgumentException when a column name is blank
   */
  public ColumnMapping(
      String eventId,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      String aggregateVersion,
      String headers,
      String traceContext,
      List<HeaderPlacement> placements) {
    this(
        named(
            eventId,
            aggregateType,
            aggregateId,
            eventType,
            payload,
            aggregateVersion,
            headers,
            traceContext),
        placements);
  }

  private ColumnMapping(Map<OutboxColumn, String> given, List<HeaderPlacement> placements) {
    EnumMap<OutboxColumn, String> all = new EnumMap<>(OutboxColumn.class);
    for (OutboxColumn c : OutboxColumn.values()) {
      String column = given.containsKey(c) ? given.get(c) : c.defaultName();
      Objects.requireNonNull(column, "column");
      if (column.isBlank()) {
        throw new IllegalArgumentException("a column name is blank");
      }
      all.put(c, column);
    }
    this.names = Collections.unmodifiableMap(all);
    this.placements = List.copyOf(placements);
  }

  private static Map<OutboxColumn, String> named(String... columns) {
    Map<OutboxColumn, String> names = new EnumMap<>(OutboxColumn.class);
    for (int i = 0; i < columns.length; i++) {
      names.put(OutboxColumn.values()[i], columns[i]);
    }
    return names;
  }

  /**
   * A mapping of the given names; a column without one has its default name.
   *
   * @param names column names by what they hold; a null value is refused
   * @param placements further columns published as headers, in this order; never null
   * @return the mapping
   * @throws NullPointerException when a given name or the placements are null
   * @throws IllegalArgumentException when a column name is blank
   */
  public static ColumnMapping of(
      Map<OutboxColumn, String> names, List<HeaderPlacement> placements) {
    return new ColumnMapping(names, placements);
  }

  /**
   * This mapping with another name for one column.
   *
   * @param column what the column holds
   * @param name its name in the table
   * @return the new mapping
   * @throws NullPointerException when the name is null
   * @throws IllegalArgumentException when it is blank
   */
  public ColumnMapping with(OutboxColumn column, String name) {
    Map<OutboxColumn, String> changed = new EnumMap<>(names);
    changed.put(column, name);
    return new ColumnMapping(changed, placements);
  }

  /**
   * The column that holds {@code column}'s value.
   *
   * @param column what the column holds
   * @return its name in the table
   */
  public String column(OutboxColumn column) {
    return names.get(column);
  }

  /**
   * The column names by what they hold, in {@link OutboxColumn} order.
   *
   * @return an unmodifiable map with every column
   */
  public Map<OutboxColumn, String> columns() {
    return names;
  }

  /**
   * The event id column.
   *
   * @return its name
   */
  public String eventId() {
    return column(OutboxColumn.EVENT_ID);
  }

  /**
   * The aggregate type column.
   *
   * @return its name
   */
  public String aggregateType() {
    return column(OutboxColumn.AGGREGATE_TYPE);
  }

  /**
   * The aggregate id column.
   *
   * @return its name
   */
  public String aggregateId() {
    return column(OutboxColumn.AGGREGATE_ID);
  }

  /**
   * The event type column.
   *
   * @return its name
   */
  public String eventType() {
    return column(OutboxColumn.EVENT_TYPE);
  }

  /**
   * The payload column.
   *
   * @return its name
   */
  public String payload() {
    return column(OutboxColumn.PAYLOAD);
  }

  /**
   * The optional aggregate version column.
   *
   * @return its name
   */
  public String aggregateVersion() {
    return column(OutboxColumn.AGGREGATE_VERSION);
  }

  /**
   * The optional application headers column.
   *
   * @return its name
   */
  public String headers() {
    return column(OutboxColumn.HEADERS);
  }

  /**
   * The optional trace context column.
   *
   * @return its name
   */
  public String traceContext() {
    return column(OutboxColumn.TRACE_CONTEXT);
  }

  /**
   * Further columns published as headers, in order.
   *
   * @return the placements; never null
   */
  public List<HeaderPlacement> placements() {
    return placements;
  }

  /**
   * The columns every row must have: the {@link OutboxColumn#requiredColumns()}, then the placed
   * columns.
   *
   * @return the names, in that order
   */
  public List<String> requiredColumns() {
    List<String> columns = new ArrayList<>();
    OutboxColumn.requiredColumns().forEach(c -> columns.add(column(c)));
    placements.forEach(p -> columns.add(p.column()));
    return columns;
  }

  /**
   * The optional columns, read when the table has them: the {@link OutboxColumn#optionalColumns()}.
   *
   * @return the names, in that order
   */
  public List<String> optionalColumns() {
    return OutboxColumn.optionalColumns().stream().map(this::column).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnMapping other
        && names.equals(other.names)
        && placements.equals(other.placements);
  }

  @Override
  public int hashCode() {
    return Objects.hash(names, placements);
  }

  /** As a record prints itself: {@code ColumnMapping[eventId=event_id, ..., placements=[]]}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("ColumnMapping[");
    names.forEach((c, name) -> sb.append(c.camelName()).append('=').append(name).append(", "));
    return sb.append("placements=").append(placements).append(']').toString();
  }
}
