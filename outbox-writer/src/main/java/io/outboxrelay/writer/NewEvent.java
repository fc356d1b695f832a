package io.outboxrelay.writer;

import io.outboxrelay.router.OutboxColumn;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One event for the outbox table, as the application hands it to {@link OutboxWriter#append}: the
 * aggregate it belongs to, its type, its payload and, optionally, its own id, the version it brings
 * its aggregate to and application headers.
 *
 * <pre>{@code
 * NewEvent event = NewEvent.builder("order", orderId, "OrderPaid")
 *     .payload(new OrderPaid(orderId, paymentId))   // turned into bytes by the writer's serializer
 *     .aggregateVersion(3)
 *     .header("tenant", "acme")
 *     .build();
 * }</pre>
 *
 * <p>An event is checked when it is appended, not when it is built: the writer checks every event
 * of a call before it writes any (see {@link OutboxWriter} for the rules), so a builder accepts any
 * value and {@link #toString()} of an invalid event still works.
 *
 * <p>Immutable and thread-safe; a {@code byte[]} payload is copied. {@link #toString()} never shows
 * the payload or the header values.
 */
public final class NewEvent {

  /**
   * What the event gives, by the column that holds it ({@link #value}): the id, the texts, the
   * payload, the version and the headers, as given ({@code null} where not given).
   */
  private final Map<OutboxColumn, Object> values;

  private NewEvent(Builder b) {
    Map<OutboxColumn, Object> v = new EnumMap<>(b.values);
    if (v.get(OutboxColumn.PAYLOAD) instanceof byte[] bytes) {
      v.put(OutboxColumn.PAYLOAD, bytes.clone());
    }
    v.put(OutboxColumn.HEADERS, Collections.unmodifiableMap(new LinkedHashMap<>(b.headers)));
    this.values = v;
  }

  /**
   * Starts building an event.
   *
   * @param aggregateType the aggregate's type, e.g. {@code order}: the relay's default topic is
   *     {@code outbox.event.<aggregate type>}
   * @param aggregateId the aggregate's id: the Kafka key, so one aggregate's events keep their
   *     order
   * @param eventType what happened, e.g. {@code OrderPaid}
   * @return a builder
   */
  public static Builder builder(String aggregateType, String aggregateId, String eventType) {
    return new Builder(aggregateType, aggregateId, eventType);
  }

  /**
   * An event with a payload and nothing else: shorthand for {@code builder(...).payload(payload)
   * .build()}.
   *
   * @param aggregateType the aggregate's type
   * @param aggregateId the aggregate's id
   * @param eventType what happened
   * @param payload a JSON {@code String}, UTF-8 {@code byte[]}, or an object for the writer's
   *     {@link PayloadSerializer}
   * @return the event
   */
  public static NewEvent of(
      String aggregateType, String aggregateId, String eventType, Object payload) {
    return builder(aggregateType, aggregateId, eventType).payload(payload).build();
  }

  /** The id the caller gave, or {@code null}: the writer then makes a UUIDv7. */
  public String eventId() {
    return (String) values.get(OutboxColumn.EVENT_ID);
  }

  /** The aggregate's type, as given (possibly {@code null} or invalid). */
  public String aggregateType() {
    return (String) values.get(OutboxColumn.AGGREGATE_TYPE);
  }

  /** The aggregate's id, as given. */
  public String aggregateId() {
    return (String) values.get(OutboxColumn.AGGREGATE_ID);
  }

  /** The event type, as given. */
  public String eventType() {
    return (String) values.get(OutboxColumn.EVENT_TYPE);
  }

  /**
   * The payload as given: a {@code String} (written as is), a {@code byte[]} (a copy; written as
   * UTF-8 text), another object (turned into bytes by the writer's serializer), or {@code null}
   * (refused when appended).
   */
  public Object payload() {
    Object payload = payloadForWriting();
    return payload instanceof byte[] bytes ? bytes.clone() : payload;
  }

  /** The version this event brings its aggregate to, or {@code null} for none. */
  public Long aggregateVersion() {
    return (Long) values.get(OutboxColumn.AGGREGATE_VERSION);
  }

  /** The application headers in the order given; unmodifiable, never {@code null}. */
  @SuppressWarnings("unchecked")
  public Map<String, String> headers() {
    return (Map<String, String>) values.get(OutboxColumn.HEADERS);
  }

  /** The payload without a copy, for the writer. */
  Object payloadForWriting() {
    return values.get(OutboxColumn.PAYLOAD);
  }

  /**
   * The value the event gives for a column, for the writer: the id ({@code null} when the writer
   * makes one), the payload as given (the writer turns it into text), the headers as given ({@code
   * null} when there are none; the writer writes them as JSON), the version, the texts.
   */
  Object value(OutboxColumn column) {
    return column == OutboxColumn.HEADERS && headers().isEmpty() ? null : values.get(column);
  }

  @Override
  public String toString() {
    return "NewEvent["
        + aggregateType()
        + "/"
        + aggregateId()
        + " "
        + eventType()
        + (eventId() == null ? "" : " id=" + eventId())
        + (aggregateVersion() == null ? "" : " version=" + aggregateVersion())
        + (headers().isEmpty() ? "" : " headers=" + headers().keySet())
        + "]";
  }

  /**
   * Builds a {@link NewEvent}. Not thread-safe; a builder may build several events.
   *
   * <p>The setters do not check values (the writer does, when the event is appended), except that a
   * header name given twice is refused at once: the headers column holds each name once.
   */
  public static final class Builder {

    private final Map<OutboxColumn, Object> values = new EnumMap<>(OutboxColumn.class);
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Builder(String aggregateType, String aggregateId, String eventType) {
      values.put(OutboxColumn.AGGREGATE_TYPE, aggregateType);
      values.put(OutboxColumn.AGGREGATE_ID, aggregateId);
      values.put(OutboxColumn.EVENT_TYPE, eventType);
    }

    /**
     * Gives the event its own id instead of a generated UUIDv7: for an id the application already
     * handed out, or one derived from a request id so that a retried request writes the same id
     * (the unique key on {@code event_id} then refuses the second row).
     *
     * @param eventId the id, not empty; for the project's DDL (a {@code CHAR(36)} or {@code uuid}
     *     column) a UUID in its 36-character text form
     * @return this builder
     */
    public Builder eventId(String eventId) {
      values.put(OutboxColumn.EVENT_ID, eventId);
      return this;
    }

    /**
     * Gives the event its own id.
     *
     * @param eventId the id; not {@code null}
     * @return this builder
     */
    public Builder eventId(UUID eventId) {
      values.put(OutboxColumn.EVENT_ID, Objects.requireNonNull(eventId, "eventId").toString());
      return this;
    }

    /**
     * Sets the payload as text, written as is (the relay publishes its bytes unchanged). Use {@code
     * "{}"} for an event without data.
     *
     * @param json the payload, normally JSON
     * @return this builder
     */
    public Builder payload(String json) {
      values.put(OutboxColumn.PAYLOAD, json);
      return this;
    }

    /**
     * Sets the payload as UTF-8 bytes (copied). The writer refuses bytes that are not valid UTF-8:
     * the payload column holds text.
     *
     * @param utf8 the payload's bytes
     * @return this builder
     */
    public Builder payload(byte[] utf8) {
      values.put(OutboxColumn.PAYLOAD, utf8 == null ? null : utf8.clone());
      return this;
    }

    /**
     * Sets the payload as an object that the writer's {@link PayloadSerializer} turns into bytes
     * when the event is appended. A {@code String} or {@code byte[]} passed here is taken as by the
     * methods for those types, not serialised.
     *
     * @param value the payload
     * @return this builder
     */
    public Builder payload(Object value) {
      values.put(OutboxColumn.PAYLOAD, value instanceof byte[] bytes ? bytes.clone() : value);
      return this;
    }

    /**
     * Sets the version the event brings its aggregate to: 1 for its first event, one more with each
     * change. The relay publishes it as the header {@code aggregate_version}; consumers with a
     * version check skip stale events by it. Needs the table's version column.
     *
     * @param version at least 1
     * @return this builder
     */
    public Builder aggregateVersion(long version) {
      values.put(OutboxColumn.AGGREGATE_VERSION, version);
      return this;
    }

    /**
     * Adds an application header, published after the relay's own headers, in the order given. See
     * {@link OutboxWriter} for the rules on names and sizes.
     *
     * @param name the name; not one of the relay's ({@code id}, {@code event_type}, {@code
     *     aggregate_type}, {@code aggregate_id}, {@code aggregate_version})
     * @param value the value, published as UTF-8
     * @return this builder
     * @throws IllegalArgumentException if a header of that name was given already
     */
    public Builder header(String name, String value) {
      if (headers.containsKey(name)) {
        throw new IllegalArgumentException(
            "header '" + name + "' is given twice: each header name may appear once per event");
      }
      headers.put(name, value);
      return this;
    }

    /**
     * Adds application headers in the map's iteration order (use a {@link LinkedHashMap} to choose
     * it).
     *
     * @param headers names and values; not {@code null}
     * @return this builder
     * @throws IllegalArgumentException if a name was given already
     */
    public Builder headers(Map<String, String> headers) {
      headers.forEach(this::header);
      return this;
    }

    /**
     * Builds the event; the builder can go on to build more.
     *
     * @return the event
     */
    public NewEvent build() {
      return new NewEvent(this);
    }
  }
}
