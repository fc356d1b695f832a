package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutingException;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
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

  /** Positions of the fixed part of the select list: the sequence, then the required columns. */
  private static final int SEQUENCE = 1;

  private static final int FIRST_REQUIRED = 2;
  private static final int CREATED_AT = FIRST_REQUIRED + OutboxColumn.requiredColumns().size();
  private static final int ATTEMPTS = CREATED_AT + 1;
  private static final int NOW = ATTEMPTS + 1;

  private final SqlDialect dialect;
  private final String sequence;
  private final ColumnMapping columns;

  /** The optional columns the table has, in {@link OutboxColumn} order, read after {@link #NOW}. */
  private final List<OutboxColumn> optional;

  private final List<PlacedColumn> placed;
  private final int placedAt;
  private final boolean createdAt;
  private final boolean attempts;

  private RowLayout(
      SqlDialect dialect,
      String sequence,
      ColumnMapping columns,
      List<OutboxColumn> optional,
      List<PlacedColumn> placed,
      boolean createdAt,
      boolean attempts) {
    this.createdAt = createdAt;
    this.attempts = attempts;
    this.dialect = dialect;
    this.sequence = sequence;
    this.columns = columns;
    this.optional = List.copyOf(optional);
    this.placed = List.copyOf(placed);
    this.placedAt = NOW + 1 + this.optional.size();
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
    List<OutboxColumn> optional = new ArrayList<>();
    for (OutboxColumn c : OutboxColumn.optionalColumns()) {
      if (OutboxColumns.has(table, m.column(c))) {
        optional.add(c);
      }
    }
    return new RowLayout(dialect, source.sequenceColumn(), m, optional, placed, true, true);
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
        claims.optional,
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
    StringBuilder sb = new StringBuilder().append("e.").append(sequence);
    for (OutboxColumn c : OutboxColumn.requiredColumns()) {
      sb.append(", ").append(select(c));
    }
    sb.append(createdAt ? ", e.created_at" : ", NULL")
        .append(attempts ? ", e.attempts, " : ", 0, ")
        .append(dialect.now());
    for (OutboxColumn c : optional) {
      sb.append(", ").append(select(c));
    }
    for (PlacedColumn p : placed) {
      sb.append(", ").append(p.select("e", dialect));
    }
    return sb.toString();
  }

  /** A column as the claim selects it: what may be of a non-text type, as text. */
  private String select(OutboxColumn c) {
    String column = "e." + columns.column(c);
    return switch (c.kind()) {
      case EVENT_ID, PAYLOAD, JSON -> dialect.text(column);
      case TEXT, INTEGER, PLAIN_TEXT -> column;
    };
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
    Map<OutboxColumn, Object> values = new EnumMap<>(OutboxColumn.class);
    String nullColumn = null;
    int at = FIRST_REQUIRED;
    for (OutboxColumn c : OutboxColumn.requiredColumns()) {
      Object value = value(c, rs, at++);
      if (value == null && c != OutboxColumn.PAYLOAD) {
        // A row without one of the values every event has is poison, not a failed claim.
        nullColumn = nullColumn == null ? columns.column(c) : nullColumn;
        value = "";
      }
      values.put(c, value);
    }
    Timestamp created = rs.getTimestamp(CREATED_AT);
    at = NOW + 1;
    for (OutboxColumn c : optional) {
      values.put(c, value(c, rs, at++));
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
    return new Row(
        OutboxEvent.of(seq, created == null ? null : created.toInstant(), values, placedHeaders),
        rs.getInt(ATTEMPTS) + 1,
        rs.getTimestamp(NOW).toInstant(),
        nullColumn == null
            ? null
            : new RoutingException(
                "outbox row "
                    + sequence
                    + "="
                    + seq
                    + " has a NULL "
                    + nullColumn
                    + ": every event needs one; make the column NOT NULL"));
  }

  /** A column's value as {@link OutboxEvent#of} takes it. */
  private static Object value(OutboxColumn c, ResultSet rs, int at) throws SQLException {
    switch (c.kind()) {
      case PAYLOAD:
        String payload = rs.getString(at);
        return payload == null ? null : payload.getBytes(StandardCharsets.UTF_8);
      case INTEGER:
        long v = rs.getLong(at);
        return rs.wasNull() ? null : v;
      default:
        return rs.getString(at);
    }
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

  /**
   * What claims read beyond the required columns, for the start's log line.
   *
   * @return e.g. {@code aggregate version from aggregate_version, no headers column}
   */
  public String describe() {
    List<String> parts = new ArrayList<>();
    for (OutboxColumn c : OutboxColumn.optionalColumns()) {
      if (optional.contains(c)) {
        parts.add(c.what().replaceFirst("^the ", "") + " from " + columns.column(c));
      } else if (c.written()) {
        parts.add("no " + columns.column(c) + " column");
      }
    }
    placed.forEach(p -> parts.add(p.toString()));
    return String.join(", ", parts);
  }
}
