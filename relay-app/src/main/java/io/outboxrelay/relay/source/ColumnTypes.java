package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.router.OutboxColumn;
import java.util.HashSet;
import java.util.Set;

/**
 * The column types the router can read on one database, by what a column holds, and the type to
 * suggest where a column has another: the knowledge table of {@link OutboxColumns#typeProblems}.
 * Base types are lower case, as the catalog reports them ({@code varchar}, {@code character
 * varying}). Immutable and thread-safe.
 *
 * @param integer integer types: the sequence and the aggregate version
 * @param eventId types of the event id read as text ({@code BINARY(16)} is CDC's own exception)
 * @param text types of the aggregate type, aggregate id and event type
 * @param json types of the payload and the application headers
 * @param plainText types of the trace context
 * @param placeable types a column placed as a header may have
 * @param sequenceDdl the sequence column's suggested type
 * @param eventIdDdl the event id's suggested type in polling mode
 * @param eventIdCdcDdl the event id's suggested type in CDC mode
 * @param textDdl the aggregate type's, aggregate id's and event type's suggested type
 * @param payloadDdl the payload's suggested types
 * @param versionDdl the aggregate version's suggested type
 * @param headersDdl the headers' suggested type
 * @param traceDdl the trace context's suggested type
 * @param timeTypes the time types a placed column may have, for messages
 */
public record ColumnTypes(
    Set<String> integer,
    Set<String> eventId,
    Set<String> text,
    Set<String> json,
    Set<String> plainText,
    Set<String> placeable,
    String sequenceDdl,
    String eventIdDdl,
    String eventIdCdcDdl,
    String textDdl,
    String payloadDdl,
    String versionDdl,
    String headersDdl,
    String traceDdl,
    String timeTypes) {

  private static final Set<String> MY_TEXT =
      Set.of("char", "varchar", "tinytext", "text", "mediumtext", "longtext");
  private static final Set<String> MY_INTEGER =
      Set.of("tinyint", "smallint", "mediumint", "int", "bigint");
  private static final Set<String> MY_TIME = Set.of("datetime", "timestamp");
  private static final Set<String> PG_TEXT = Set.of("text", "character varying", "character");
  private static final Set<String> PG_INTEGER = Set.of("smallint", "integer", "bigint");
  private static final Set<String> PG_TIME =
      Set.of("timestamp without time zone", "timestamp with time zone");

  /** MariaDB and MySQL. */
  static final ColumnTypes MYSQL =
      new ColumnTypes(
          MY_INTEGER,
          MY_TEXT,
          union(MY_TEXT, Set.of("enum")),
          union(MY_TEXT, Set.of("json")),
          MY_TEXT,
          union(union(union(MY_TEXT, Set.of("enum")), MY_INTEGER), MY_TIME),
          "BIGINT UNSIGNED AUTO_INCREMENT",
          "CHAR(36)",
          "CHAR(36) (or BINARY(16))",
          "VARCHAR(255)",
          "JSON or LONGTEXT",
          "BIGINT NULL",
          "JSON NULL (or LONGTEXT)",
          "VARCHAR(512) NULL",
          "DATETIME or TIMESTAMP");

  /** PostgreSQL. */
  static final ColumnTypes POSTGRESQL =
      new ColumnTypes(
          PG_INTEGER,
          union(PG_TEXT, Set.of("uuid")),
          PG_TEXT,
          union(PG_TEXT, Set.of("json", "jsonb")),
          PG_TEXT,
          union(union(PG_TEXT, PG_INTEGER), PG_TIME),
          "bigint GENERATED ALWAYS AS IDENTITY",
          "uuid",
          "uuid",
          "varchar(255)",
          "jsonb, json or text",
          "bigint NULL",
          "jsonb NULL (or text)",
          "varchar(512) NULL",
          "timestamp or timestamptz");

  /**
   * The event id's suggested type in a mode.
   *
   * @param mode the relay's mode
   * @return the type
   */
  public String eventIdDdl(RelayMode mode) {
    return mode == RelayMode.CDC ? eventIdCdcDdl : eventIdDdl;
  }

  /**
   * What fits a column of one kind, for {@link OutboxColumns#typeProblems}.
   *
   * @param accepted its base types
   * @param kind what it must be, for messages: {@code text}, {@code an integer}
   * @param ddl the type to suggest
   */
  public record Fit(Set<String> accepted, String kind, String ddl) {}

  /**
   * What fits a column of a kind in a mode (the event id's suggested type is the mode's).
   *
   * @param kind what the column holds
   * @param mode the relay's mode
   * @return its types, the word for them and the type to suggest
   */
  public Fit fit(OutboxColumn.Kind kind, RelayMode mode) {
    return switch (kind) {
      case EVENT_ID -> new Fit(eventId, "text", eventIdDdl(mode));
      case TEXT -> new Fit(text, "text", textDdl);
      case PAYLOAD -> new Fit(json, "text", payloadDdl);
      // Published as decimal text, which only an integer column gives in both modes.
      case INTEGER -> new Fit(integer, "an integer", versionDdl);
      case JSON -> new Fit(json, "text or JSON", headersDdl);
      case PLAIN_TEXT -> new Fit(plainText, "text", traceDdl);
    };
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new HashSet<>(a);
    all.addAll(b);
    return Set.copyOf(all);
  }
}
