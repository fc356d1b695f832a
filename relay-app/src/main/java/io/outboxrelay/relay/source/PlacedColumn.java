package io.outboxrelay.relay.source;

import io.outboxrelay.router.HeaderPlacement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A column placed as a header, as polling reads it: the select expression and how its value becomes
 * the header's text, chosen once at start from the column's type, so that polling writes the text
 * CDC mode gets from Debezium (and a Connect worker's header converter writes):
 *
 * <ul>
 *   <li>text and integer columns: the value as text, an integer in decimal;
 *   <li>{@code DATETIME(p)} (PostgreSQL {@code timestamp(p)}): Debezium's {@code Timestamp} for
 *       precision 0-3, milliseconds since the epoch, or {@code MicroTimestamp} for 4-6,
 *       microseconds, the value read as UTC; in decimal;
 *   <li>{@code TIMESTAMP(p)} (PostgreSQL {@code timestamptz(p)}): Debezium's {@code
 *       ZonedTimestamp}, ISO-8601 in UTC with exactly {@code p} fractional digits (none for 0),
 *       e.g. {@code 2026-03-11T10:15:30.123456Z}. PostgreSQL's precision is 6 when the column
 *       declares none.
 * </ul>
 *
 * Immutable and thread-safe.
 */
final class PlacedColumn {

  /** How a value becomes text. */
  enum Kind {
    /** Text or an integer, as the driver gives it as text. */
    TEXT,
    /** A local date and time: milliseconds or microseconds since the epoch, read as UTC. */
    EPOCH,
    /** A point in time: ISO-8601 in UTC. */
    ZONED
  }

  private static final Pattern PRECISION = Pattern.compile("\\((\\d+)\\)");
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private final String header;
  private final String column;
  private final Kind kind;
  private final int precision;
  private final DateTimeFormatter zoned;

  private PlacedColumn(String header, String column, Kind kind, int precision) {
    this.header = header;
    this.column = column;
    this.kind = kind;
    this.precision = precision;
    this.zoned = kind == Kind.ZONED ? zonedFormatter(precision) : null;
  }

  /**
   * The placed column of a placement, for a column of the given type.
   *
   * @param placement the placement
   * @param type the column as the catalog describes it (its type checked at start)
   * @param dialect the database
   * @return the placed column
   */
  static PlacedColumn of(HeaderPlacement placement, OutboxColumns.Column type, SqlDialect dialect) {
    Matcher m = PRECISION.matcher(type.declaredType());
    int precision = m.find() ? Integer.parseInt(m.group(1)) : dialect.defaultTimePrecision();
    Kind kind =
        switch (type.dataType()) {
          case "datetime", "timestamp without time zone" -> Kind.EPOCH;
          case "timestamp", "timestamp with time zone" -> Kind.ZONED;
          default -> Kind.TEXT;
        };
    return new PlacedColumn(placement.header(), placement.column(), kind, precision);
  }

  /** The header's name. */
  String header() {
    return header;
  }

  /**
   * What the claim selects for this column.
   *
   * @param alias the table's alias in the claim, e.g. {@code e}
   * @param dialect the database
   * @return the select expression
   */
  String select(String alias, SqlDialect dialect) {
    String c = alias + "." + column;
    return switch (kind) {
      case TEXT -> dialect.text(c);
      case EPOCH -> dialect.localTimeText(c);
      // A TIMESTAMP is a point in time: read it as one, whatever the session's time zone.
      case ZONED -> dialect.zonedTimeText(c);
    };
  }

  /**
   * The header's text from the claim's row.
   *
   * @param rs the row
   * @param index where {@link #select} is in it
   * @param dialect the database
   * @return the text, or {@code null} for NULL (no header)
   * @throws SQLException when the value cannot be read
   */
  String text(ResultSet rs, int index, SqlDialect dialect) throws SQLException {
    return text(rs.getString(index), dialect);
  }

  /**
   * The header's text from what {@link #select} gave as text.
   *
   * @param v the selected value as text, or {@code null}
   * @param dialect the database
   * @return the header's text, or {@code null} for NULL
   */
  String text(String v, SqlDialect dialect) {
    if (v == null || kind == Kind.TEXT) {
      return v;
    }
    if (kind == Kind.EPOCH) {
      Instant t = LocalDateTime.parse(v, LOCAL).toInstant(ZoneOffset.UTC);
      return precision <= 3
          ? Long.toString(t.toEpochMilli())
          : Long.toString(
              Math.addExact(
                  Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000));
    }
    return zoned.format(dialect.zonedTime(v).atOffset(ZoneOffset.UTC));
  }

  /** Debezium's ZonedTimestamp text: exactly {@code precision} fractional digits, or ISO's own. */
  static DateTimeFormatter zonedFormatter(int precision) {
    if (precision <= 0 || precision > 9) {
      return DateTimeFormatter.ISO_OFFSET_DATE_TIME;
    }
    return new DateTimeFormatterBuilder()
        .append(DateTimeFormatter.ISO_LOCAL_DATE)
        .appendLiteral('T')
        .appendValue(ChronoField.HOUR_OF_DAY, 2)
        .appendLiteral(':')
        .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
        .appendLiteral(':')
        .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
        .appendFraction(ChronoField.NANO_OF_SECOND, precision, precision, true)
        .appendOffsetId()
        .toFormatter(Locale.ENGLISH);
  }

  @Override
  public String toString() {
    return column + " as header " + header + " (" + kind.name().toLowerCase(Locale.ROOT) + ")";
  }
}
