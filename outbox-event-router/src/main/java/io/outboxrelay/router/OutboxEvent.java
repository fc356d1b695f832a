package io.outboxrelay.router;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One row of the outbox table, as the relay read it from the database or the binlog.
 *
 * <p>Immutable apart from the payload array, which is not copied: callers must not modify it after
 * construction. {@link #toString()} never prints the payload, the headers or the trace context
 * (payloads and header values are never logged).
 *
 * @param id the row's primary key (monotonic per insert, not per commit)
 * @param eventId the event's unique id (a UUID in text form); never null
 * @param aggregateType the aggregate type, e.g. {@code order}; never null
 * @param aggregateId the aggregate id; the Kafka key, so events of one aggregate stay in one
 *     partition and in order; never null
 * @param eventType the event type, e.g. {@code OrderCreated}; never null
 * @param payload the payload bytes (UTF-8 JSON as stored); {@code null} when the column is NULL,
 *     which {@link EventRouter#route} refuses (the record would be a tombstone)
 * @param createdAt when the row was written, or {@code null} when unknown
 * @param aggregateVersion the version the event brings its aggregate to (the optional {@code
 *     aggregate_version} column), published as the header {@link OutboxHeaders#AGGREGATE_VERSION};
 *     {@code null} when the table has no such column or the row's value is NULL, and then no such
 *     header is published
 * @param headers the application headers: the optional {@code headers} column's text as stored,
 *     checked and parsed by {@link EventRouter#route} ({@link ApplicationHeaders}); {@code null}
 *     when the table has no such column or the row's value is NULL
 * @param traceContext the optional trace context column's text as stored ({@link TraceContext}),
 *     parsed by {@link EventRouter#route}; {@code null} when there is none
 * @param placedHeaders the headers of the columns placed as headers ({@link HeaderPlacement}), in
 *     their configured order, values already as text; never null (empty when none)
 */
public record OutboxEvent(
    long id,
    String eventId,
    String aggregateType,
    String aggregateId,
    String eventType,
    byte[] payload,
    Instant createdAt,
    Long aggregateVersion,
    String headers,
    String traceContext,
    List<RecordHeader> placedHeaders) {

  /**
   * Checks the required fields and freezes the placed headers.
   *
   * @throws NullPointerException if {@code eventId}, {@code aggregateType}, {@code aggregateId},
   *     {@code eventType} or {@code placedHeaders} is null
   */
  public OutboxEvent {
    Objects.requireNonNull(eventId, "event_id");
    Objects.requireNonNull(aggregateType, "aggregate_type");
    Objects.requireNonNull(aggregateId, "aggregate_id");
    Objects.requireNonNull(eventType, "event_type");
    placedHeaders = placedHeaders.isEmpty() ? List.of() : List.copyOf(placedHeaders);
  }

  /**
   * An event of a table without application headers, trace context or placed columns.
   *
   * @param id see {@link OutboxEvent}
   * @param eventId see {@link OutboxEvent}
   * @param aggregateType see {@link OutboxEvent}
   * @param aggregateId see {@link OutboxEvent}
   * @param eventType see {@link OutboxEvent}
   * @param payload see {@link OutboxEvent}
   * @param createdAt see {@link OutboxEvent}
   * @param aggregateVersion see {@link OutboxEvent}
   * @throws NullPointerException if {@code eventId}, {@code aggregateType}, {@code aggregateId} or
   *     {@code eventType} is null
   */
  public OutboxEvent(
      long id,
      String eventId,
      String aggregateType,
      String aggregateId,
      String eventType,
      byte[] payload,
      Instant createdAt,
      Long aggregateVersion) {
    this(
        id,
        eventId,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        createdAt,
        aggregateVersion,
        null,
        null,
        List.of());
  }

  /**
   * An event without an aggregate version: a row of a table without the {@code aggregate_version}
   * column.
   *
   * @param id see {@link OutboxEvent}
   * @param eventId see {@link OutboxEvent}
   * @param aggregateType see {@link OutboxEvent}
   * @param aggregateId see {@link OutboxEvent}
   * @param eventType see {@link OutboxEvent}
   * @param payload see {@link OutboxEvent}
   * @param createdAt see {@link OutboxEvent}
   * @throws NullPointerException if {@code eventId}, {@code aggregateType}, {@code aggregateId} or
   *     {@code eventType} is null
   */
  public OutboxEvent(
      long id,
      String eventId,
      String aggregateType,
      String aggregateId,
      String eventType,
      byte[] payload,
      Instant createdAt) {
    this(id, eventId, aggregateType, aggregateId, eventType, payload, createdAt, (Long) null);
  }

  /**
   * An event from the values of a row's columns, as the readers read them: the payload as {@code
   * byte[]}, an {@link OutboxColumn.Kind#INTEGER} column as {@code Long}, every other column as
   * {@code String}. The readers read every column of {@link OutboxColumn} this way, so a column
   * added there needs no change to them.
   *
   * @param id see {@link OutboxEvent}
   * @param createdAt see {@link OutboxEvent}
   * @param values the columns' values; a column without one (absent from the table, or NULL) is
   *     {@code null}
   * @param placedHeaders see {@link OutboxEvent}
   * @return the event
   * @throws NullPointerException if a required column other than the payload has no value
   * @throws ClassCastException if a value is not of its column's type
   */
  public static OutboxEvent of(
      long id, Instant createdAt, Map<OutboxColumn, ?> values, List<RecordHeader> placedHeaders) {
    return new OutboxEvent(
        id,
        (String) values.get(OutboxColumn.EVENT_ID),
        (String) values.get(OutboxColumn.AGGREGATE_TYPE),
        (String) values.get(OutboxColumn.AGGREGATE_ID),
        (String) values.get(OutboxColumn.EVENT_TYPE),
        (byte[]) values.get(OutboxColumn.PAYLOAD),
        createdAt,
        (Long) values.get(OutboxColumn.AGGREGATE_VERSION),
        (String) values.get(OutboxColumn.HEADERS),
        (String) values.get(OutboxColumn.TRACE_CONTEXT),
        placedHeaders);
  }

  /**
   * The value of one column, typed as {@link #of} takes it.
   *
   * @param column the column
   * @return its value; {@code null} for an optional column without one
   */
  public Object value(OutboxColumn column) {
    return switch (column) {
      case EVENT_ID -> eventId;
      case AGGREGATE_TYPE -> aggregateType;
      case AGGREGATE_ID -> aggregateId;
      case EVENT_TYPE -> eventType;
      case PAYLOAD -> payload;
      case AGGREGATE_VERSION -> aggregateVersion;
      case HEADERS -> headers;
      case TRACE_CONTEXT -> traceContext;
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxEvent other
        && id == other.id
        && eventId.equals(other.eventId)
        && aggregateType.equals(other.aggregateType)
        && aggregateId.equals(other.aggregateId)
        && eventType.equals(other.eventType)
        && Arrays.equals(payload, other.payload)
        && Objects.equals(createdAt, other.createdAt)
        && Objects.equals(aggregateVersion, other.aggregateVersion)
        && Objects.equals(headers, other.headers)
        && Objects.equals(traceContext, other.traceContext)
        && placedHeaders.equals(other.placedHeaders);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
                id,
                eventId,
                aggregateType,
                aggregateId,
                eventType,
                createdAt,
                aggregateVersion,
                headers,
                traceContext,
                placedHeaders)
            * 31
        + Arrays.hashCode(payload);
  }

  /**
   * Names the event for a message or a log line, without its payload, headers, trace context or
   * placed values, which may hold personal data: {@code event_id=... (aggregate_type='...',
   * aggregate_id='...')}. Every module's messages about one event use it.
   *
   * @return the description
   */
  public String describe() {
    return describe(eventId, aggregateType, aggregateId);
  }

  /**
   * {@link #describe()} of an event known only by its ids, e.g. of a row that did not make a whole
   * event.
   *
   * @param eventId the event id; may be {@code null}
   * @param aggregateType the aggregate type; may be {@code null}
   * @param aggregateId the aggregate id; may be {@code null}
   * @return the description
   */
  public static String describe(String eventId, String aggregateType, String aggregateId) {
    return "event_id="
        + eventId
        + " (aggregate_type='"
        + aggregateType
        + "', aggregate_id='"
        + aggregateId
        + "')";
  }

  /**
   * Describes the event for debugging, with more fields than {@link #describe()} and no more
   * personal data: no payload, headers, trace context or placed values.
   */
  @Override
  public String toString() {
    return "OutboxEvent[id="
        + id
        + ", eventId="
        + eventId
        + ", aggregateType="
        + aggregateType
        + ", aggregateId="
        + aggregateId
        + ", eventType="
        + eventType
        + (aggregateVersion == null ? "" : ", aggregateVersion=" + aggregateVersion)
        + ", payloadBytes="
        + (payload == null ? "null" : payload.length)
        + (headers == null ? "" : ", headersChars=" + headers.length())
        + (traceContext == null ? "" : ", traceContext=present")
        + (placedHeaders.isEmpty()
            ? ""
            : ", placedHeaders=" + placedHeaders.stream().map(RecordHeader::name).toList())
        + "]";
  }
}
