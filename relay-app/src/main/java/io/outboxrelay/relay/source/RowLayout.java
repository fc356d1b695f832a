package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutingException;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The columns a claim reads, and how a claimed row becomes an {@link OutboxEvent}: the mapped
 * columns ({@code source.column.*}), the optional ones the table had at start, and the placed
 * columns with their conversions. Resolved once when polling starts, so reading a row compares no
 * names: each value is at a fixed position of the claim's select list. CDC's first start reads the
 * rows already in the table with the same layout ({@link #forSnapshot}), so that it publishes them
 * exactly as polling would; it lives outside both sources for that. Immutable and thread-safe.
 */
public final class RowLayout {

  /** Positions of the fixed part of the select list. */
  private static final int SEQUENCE = 1;

  private static final int EVENT_ID = 2;
  private static final int AGGREGATE_TYPE = 3;
  private static final int AGGREGATE_ID = 4;
  private static final int EVENT_TYPE = 5;
  private static final int PAYLOAD = 6;
  private static final int CREATED_AT = 7;
  private static final int ATTEMPTS = 8;
  private static final int NOW = 9;

  private final SqlDialect dialect;
  private final String sequence;
  private final ColumnMapping columns;
  private final boolean versions;
  private final boolean headers;
  private final boolean traceContext;
  private final List<PlacedColumn> placed;
  private final int versionAt;
  private final int headersAt;
  private final int traceAt;
  private final int placedAt;
  private final boolean createdAt;
  private final boolean attempts;

  private RowLayout(
      SqlDialect dialect,
      String sequence,
      ColumnMapping columns,
      boolean versions,
      boolean headers,
      boolean traceContext,
      List<PlacedColumn> placed) {
    this(dialect, sequence, columns, versions, headers, traceContext, placed, true, true);
  }

  private RowLayout(
      SqlDialect dialect,
      String sequence,
      ColumnMapping columns,
      boolean versions,
      boolean headers,
      boolean traceContext,
      List<PlacedColumn> placed,
      boolean createdAt,
      boolean attempts) {
    this.createdAt = createdAt;
    this.attempts = attempts;
    this.dialect = dialect;
    this.sequence = sequence;
    this.columns = columns;
    this.versions = versions;
    this.headers = headers;
    this.traceContext = traceContext;
    this.placed = List.copyOf(placed);
    int next = NOW + 1;
    versionAt = versions ? next++ : -1;
    headersAt = headers ? next++ : -1;
    traceAt = traceContext ? next++ : -1;
    placedAt = next;
  }

  /**
   * The layout of the table as it is: optional columns read when present, placed columns read as
   * their type says.
   *
   * @param source the source settings
   * @param table the table's columns, from {@link OutboxColumns#read} (checked at start)
   * @return the layout
   */
  public static RowLayout of(SourceConfig source, Map<String, OutboxColumns.Column> table) {
    ColumnMapping m = source.columns();
    SqlDialect dialect = SqlDialect.of(source.flavor());
    List<PlacedColumn> placed = new ArrayList<>();
    for (HeaderPlacement p : m.placements()) {
      placed.add(PlacedColumn.of(p, OutboxColumns.find(table, p.column()), dialect));
    }
    return new RowLayout(
        dialect,
        source.sequenceColumn(),
        m,
        OutboxColumns.has(table, m.aggregateVersion()),
        OutboxColumns.has(table, m.headers()),
        OutboxColumns.has(table, m.traceContext()),
        placed);
  }

  /**
   * The layout for reading the rows already in a table that may lack polling's columns ({@code
   * created_at}, {@code attempts}): CDC's first start publishes them with it.
   *
   * @param source the source settings
   * @param table the table's columns, from {@link OutboxColumns#read}
   * @return the layout
   */
  public static RowLayout forSnapshot(
      SourceConfig source, Map<String, OutboxColumns.Column> table) {
    RowLayout claims = of(source, table);
    return new RowLayout(
        claims.dialect,
        claims.sequence,
        claims.columns,
        claims.versions,
        claims.headers,
        claims.traceContext,
        claims.placed,
        OutboxColumns.has(table, "created_at"),
        OutboxColumns.has(table, "attempts"));
  }

  /**
   * The database the layout reads.
   *
   * @return its dialect
   */
  public SqlDialect dialect() {
    return dialect;
  }

  /**
   * The sequence column.
   *
   * @return its name
   */
  public String sequence() {
    return sequence;
  }

  /**
   * The mapped columns.
   *
   * @return the mapping
   */
  public ColumnMapping columns() {
    return columns;
  }

  /**
   * The claim's select list over the table aliased {@code e}, in the layout's dialect.
   *
   * @return the list
   */
  public String selectList() {
    StringBuilder sb =
        new StringBuilder()
            .append("e.")
            .append(sequence)
            .append(", ")
            .append(dialect.text("e." + columns.eventId()))
            .append(", e.")
            .append(columns.aggregateType())
            .append(", e.")
            .append(columns.aggregateId())
            .append(", e.")
            .append(columns.eventType())
            .append(", ")
            .append(dialect.text("e." + columns.payload()))
            .append(createdAt ? ", e.created_at" : ", NULL")
            .append(attempts ? ", e.attempts, " : ", 0, ")
            .append(dialect.now());
    if (versions) {
      sb.append(", e.").append(columns.aggregateVersion());
    }
    if (headers) {
      sb.append(", ").append(dialect.text("e." + columns.headers()));
    }
    if (traceContext) {
      sb.append(", e.").append(columns.traceContext());
    }
    for (PlacedColumn p : placed) {
      sb.append(", ").append(p.select("e", dialect));
    }
    return sb.toString();
  }

  /**
   * The event in the current row of a result selected with {@link #selectList} (a claim's, or a
   * snapshot's).
   *
   * @param rs the result, on a row
   * @return the event, its attempt, the database's time, and why it cannot be published when a
   *     required value is NULL
   * @throws SQLException when a value cannot be read
   */
  public Row readRow(ResultSet rs) throws SQLException {
    String payload = rs.getString(PAYLOAD);
    Timestamp created = rs.getTimestamp(CREATED_AT);
    Long version = null;
    if (versions) {
      long v = rs.getLong(versionAt);
      version = rs.wasNull() ? null : v;
    }
    List<RecordHeader> placedHeaders = List.of();
    if (!placed.isEmpty()) {
      placedHeaders = new ArrayList<>(placed.size());
      for (int i = 0; i < placed.size(); i++) {
        PlacedColumn p = placed.get(i);
        String text = p.text(rs, placedAt + i, dialect);
        if (text != null) {
          placedHeaders.add(RecordHeader.utf8(p.header(), text));
        }
      }
    }
    long seq = rs.getLong(SEQUENCE);
    String eventId = rs.getString(EVENT_ID);
    String aggregateType = rs.getString(AGGREGATE_TYPE);
    String aggregateId = rs.getString(AGGREGATE_ID);
    String eventType = rs.getString(EVENT_TYPE);
    RoutingException malformed = malformed(seq, eventId, aggregateType, aggregateId, eventType);
    return new Row(
        new OutboxEvent(
            seq,
            orEmpty(eventId),
            orEmpty(aggregateType),
            orEmpty(aggregateId),
            orEmpty(eventType),
            payload == null ? null : payload.getBytes(StandardCharsets.UTF_8),
            created == null ? null : created.toInstant(),
            version,
            headers ? rs.getString(headersAt) : null,
            traceContext ? rs.getString(traceAt) : null,
            placedHeaders),
        rs.getInt(ATTEMPTS) + 1,
        rs.getTimestamp(NOW).toInstant(),
        malformed);
  }

  /**
   * One row read with {@link #readRow}.
   *
   * @param event the event
   * @param attempt the publishing attempt this is ({@code attempts} + 1; 1 without the column)
   * @param databaseTime the database's time when the row was read
   * @param malformed why it cannot be published (a required value is NULL), or {@code null}
   */
  public record Row(
      OutboxEvent event, int attempt, Instant databaseTime, RoutingException malformed) {}

  /** A row without one of the values every event has is poison, not a failed claim. */
  private RoutingException malformed(
      long seq, String eventId, String aggregateType, String aggregateId, String eventType) {
    String column =
        eventId == null
            ? columns.eventId()
            : aggregateType == null
                ? columns.aggregateType()
                : aggregateId == null
                    ? columns.aggregateId()
                    : eventType == null ? columns.eventType() : null;
    return column == null
        ? null
        : new RoutingException(
            "outbox row "
                + sequence
                + "="
                + seq
                + " has a NULL "
                + column
                + ": every event needs one; make the column NOT NULL");
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  /**
   * What claims read beyond the required columns, for the start's log line.
   *
   * @return e.g. {@code aggregate versions from aggregate_version, no headers column}
   */
  public String describe() {
    List<String> parts = new ArrayList<>();
    parts.add(
        versions
            ? "aggregate versions from " + columns.aggregateVersion()
            : "no aggregate_version column");
    parts.add(headers ? "application headers from " + columns.headers() : "no headers column");
    if (traceContext) {
      parts.add("trace context from " + columns.traceContext());
    }
    placed.forEach(p -> parts.add(p.toString()));
    return String.join(", ", parts);
  }
}
