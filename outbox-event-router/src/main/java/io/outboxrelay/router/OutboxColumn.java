package io.outboxrelay.router;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The outbox table's columns, declared once: what each holds, its default name, whether every row
 * must have it, what kind of value it is, the header it is published as and the description of its
 * settings. Every layer derives its column lists from here: the writer's {@code INSERT}, the Spring
 * starter's {@code outbox.writer.columns.*} wiring, the column settings {@code source.column.*} of
 * the relay and of the Kafka Connect transform, the relay's select lists and startup checks, and
 * the readers of a row ({@link ColumnMapping} names the columns of one table).
 *
 * <p>The constants are in the order of the relay's DDL: the five required columns, then the
 * optional ones. Immutable.
 */
public enum OutboxColumn {

  /** The event id: the header {@code id}, on which consumers deduplicate. */
  EVENT_ID(
      ColumnMapping.DEFAULT_EVENT_ID,
      "event.id",
      Kind.EVENT_ID,
      true,
      true,
      OutboxHeaders.ID,
      "the event id",
      "Column holding the event id: the header id, on which consumers deduplicate (id in"
          + " Debezium's outbox table)."),

  /** The aggregate type: the topic, and the header {@code aggregate_type}. */
  AGGREGATE_TYPE(
      ColumnMapping.DEFAULT_AGGREGATE_TYPE,
      "aggregate.type",
      Kind.TEXT,
      true,
      true,
      OutboxHeaders.AGGREGATE_TYPE,
      "the aggregate type",
      "Column holding the aggregate type: ${aggregate_type} in router.topic.template and the"
          + " header aggregate_type (aggregatetype in Debezium's outbox table)."),

  /** The aggregate id: the record key, and the header {@code aggregate_id}. */
  AGGREGATE_ID(
      ColumnMapping.DEFAULT_AGGREGATE_ID,
      "aggregate.id",
      Kind.TEXT,
      true,
      true,
      OutboxHeaders.AGGREGATE_ID,
      "the aggregate id",
      "Column holding the aggregate id: the record key, and the header aggregate_id"
          + " (aggregateid in Debezium's outbox table)."),

  /** The event type: the header {@code event_type}. */
  EVENT_TYPE(
      ColumnMapping.DEFAULT_EVENT_TYPE,
      "event.type",
      Kind.TEXT,
      true,
      true,
      OutboxHeaders.EVENT_TYPE,
      "the event type",
      "Column holding the event type: ${event_type} in router.topic.template and the header"
          + " event_type (type in Debezium's outbox table)."),

  /** The payload: the record value. */
  PAYLOAD(
      ColumnMapping.DEFAULT_PAYLOAD,
      "payload",
      Kind.PAYLOAD,
      true,
      true,
      null,
      "the payload",
      "Column holding the payload, published as the record value, its text's bytes."),

  /**
   * Optional: the version the event brings its aggregate to, the header {@code aggregate_version}.
   */
  AGGREGATE_VERSION(
      ColumnMapping.DEFAULT_AGGREGATE_VERSION,
      "aggregate.version",
      Kind.INTEGER,
      false,
      true,
      OutboxHeaders.AGGREGATE_VERSION,
      "the aggregate version",
      "Column holding the version the event brings its aggregate to (an integer), published as"
          + " the header aggregate_version."),

  /** Optional: the application headers ({@link ApplicationHeaders}). */
  HEADERS(
      ColumnMapping.DEFAULT_HEADERS,
      "headers",
      Kind.JSON,
      false,
      true,
      null,
      "the application headers",
      "Column holding the application headers: NULL, or a JSON object of string values"
          + " published as headers after the relay's own, in member order (the contract:"
          + " README, Application headers)."),

  /**
   * Optional: the W3C trace context as Debezium's {@code tracingspancontext} ({@link
   * TraceContext}); read, never written by the writer (which puts the trace into the headers).
   */
  TRACE_CONTEXT(
      ColumnMapping.DEFAULT_TRACE_CONTEXT,
      "tracing.span.context",
      Kind.PLAIN_TEXT,
      false,
      false,
      null,
      "the trace context",
      "Column holding the W3C trace context as java.util.Properties text, as Debezium's"
          + " tracingspancontext: published as the headers traceparent and tracestate, first"
          + " among the headers.");

  /** What kind of value a column holds: how the readers read it and which types fit it. */
  public enum Kind {
    /** Text, or a UUID ({@code uuid}; {@code BINARY(16)} in CDC mode and for the writer). */
    EVENT_ID,
    /** Text ({@code VARCHAR}); published as its UTF-8 bytes. */
    TEXT,
    /** Text or JSON, published as its text's bytes: the record value. */
    PAYLOAD,
    /** An integer, published as decimal text. */
    INTEGER,
    /** Text or JSON: a JSON document. */
    JSON,
    /** Text only. */
    PLAIN_TEXT
  }

  private static final List<OutboxColumn> REQUIRED = filter(true);
  private static final List<OutboxColumn> OPTIONAL = filter(false);

  private final String defaultName;
  private final String key;
  private final Kind kind;
  private final boolean required;
  private final boolean written;
  private final String header;
  private final String what;
  private final String description;

  OutboxColumn(
      String defaultName,
      String key,
      Kind kind,
      boolean required,
      boolean written,
      String header,
      String what,
      String description) {
    this.defaultName = defaultName;
    this.key = key;
    this.kind = kind;
    this.required = required;
    this.written = written;
    this.header = header;
    this.what = what;
    this.description = description;
  }

  /**
   * The column's name in the relay's own table ({@link ColumnMapping#DEFAULT}).
   *
   * @return e.g. {@code aggregate_version}
   */
  public String defaultName() {
    return defaultName;
  }

  /**
   * The name of the column's setting after {@code source.column.} (the relay's and the Kafka
   * Connect transform's key).
   *
   * @return e.g. {@code aggregate.version}
   */
  public String key() {
    return key;
  }

  /**
   * The constant's name in camel case: the accessor of {@link ColumnMapping}, the Spring starter's
   * property below {@code outbox.writer.columns} (in Java; {@code aggregate-version} in a
   * properties file) and, with {@code Column} appended, the writer's builder method.
   *
   * @return e.g. {@code aggregateVersion}
   */
  public String camelName() {
    StringBuilder sb = new StringBuilder();
    boolean upper = false;
    for (char c : name().toLowerCase(Locale.ROOT).toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        sb.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return sb.toString();
  }

  /**
   * What kind of value the column holds.
   *
   * @return the kind
   */
  public Kind kind() {
    return kind;
  }

  /**
   * Whether every row must have the column; an optional one is read (and written) when the table
   * has it.
   *
   * @return true for the five required columns
   */
  public boolean required() {
    return required;
  }

  /**
   * Whether the writer writes the column (the trace context column is Debezium's, only read).
   *
   * @return true when the writer writes it
   */
  public boolean written() {
    return written;
  }

  /**
   * The relay's own header the column's value is published as ({@link OutboxHeaders}).
   *
   * @return the header name, or {@code null} for the payload, the application headers and the trace
   *     context, which are published otherwise
   */
  public String header() {
    return header;
  }

  /**
   * What the column holds, for messages.
   *
   * @return e.g. {@code the aggregate version}
   */
  public String what() {
    return what;
  }

  /**
   * The description of the column's setting, for the relay's and the transform's documentation.
   *
   * @return one or two sentences
   */
  public String description() {
    return description;
  }

  /**
   * The required columns, in order.
   *
   * @return {@link #EVENT_ID} to {@link #PAYLOAD}
   */
  public static List<OutboxColumn> requiredColumns() {
    return REQUIRED;
  }

  /**
   * The optional columns, in order.
   *
   * @return the columns that are not {@link #required()}
   */
  public static List<OutboxColumn> optionalColumns() {
    return OPTIONAL;
  }

  private static List<OutboxColumn> filter(boolean required) {
    List<OutboxColumn> out = new ArrayList<>();
    for (OutboxColumn c : values()) {
      if (c.required == required) {
        out.add(c);
      }
    }
    return List.copyOf(out);
  }
}
