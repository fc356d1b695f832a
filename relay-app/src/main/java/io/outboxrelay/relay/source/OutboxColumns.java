package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The outbox table's columns and their types, and whether the router can read the columns it needs.
 * A column of the wrong type passes every privilege check and fails only at the first row (in CDC a
 * {@code ClassCastException}, and with {@code cdc.poison.action=skip} every row would be dropped),
 * so both modes check the types at start.
 *
 * <p>What each mode can read: the router takes the event id, aggregate type, aggregate id and event
 * type as text, and publishes the payload's text as its bytes. CDC gets these values from Debezium,
 * which gives text only for text and {@code ENUM} columns (and raw bytes for {@code BINARY(16)}
 * event ids, read as a UUID); polling reads the values as text and the row id as a number. Binary
 * payloads are refused in both modes: polling would decode them as UTF-8, and CDC's bytes would
 * depend on Debezium's {@code binary.handling.mode}, so the two modes would publish different
 * bytes. The optional {@value #AGGREGATE_VERSION} column must be an integer when present.
 * Stateless.
 */
public final class OutboxColumns {

  /** One column: its name (lower case), its base type and its full declared type. */
  public record Column(String name, String dataType, String declaredType) {}

  private static final Set<String> MY_TEXT =
      Set.of("char", "varchar", "tinytext", "text", "mediumtext", "longtext");
  private static final Set<String> MY_INTEGER =
      Set.of("tinyint", "smallint", "mediumint", "int", "bigint");
  private static final Set<String> PG_TEXT = Set.of("text", "character varying", "character");
  private static final Set<String> PG_INTEGER = Set.of("smallint", "integer", "bigint");

  /** The optional column whose value both modes publish as the header {@code aggregate_version}. */
  public static final String AGGREGATE_VERSION = "aggregate_version";

  /**
   * The columns every outbox table has and both modes read into an event for the router, in table
   * order.
   */
  public static final List<String> EVENT_COLUMNS =
      List.of("id", "event_id", "aggregate_type", "aggregate_id", "event_type", "payload");

  private OutboxColumns() {}

  /**
   * Whether the table has the optional {@value #AGGREGATE_VERSION} column, so that its rows'
   * versions are published.
   *
   * @param columns the table's columns, from {@link #read}
   * @return true when the column is there
   */
  /**
   * Whether the outbox table has polling's {@code status} column (a CDC table may have it, when it
   * was polled before or is handed over).
   *
   * @param c a connection to the source database
   * @param source where the table is
   * @return true when the column exists
   * @throws SQLException when the catalog cannot be read
   */
  public static boolean hasStatus(Connection c, SourceConfig source) throws SQLException {
    return read(c, source).containsKey("status");
  }

  public static boolean hasAggregateVersion(Map<String, Column> columns) {
    return columns.containsKey(AGGREGATE_VERSION);
  }

  /**
   * Reads the outbox table's columns, as the relay's user sees them.
   *
   * @param c a connection as the relay's user
   * @param source where the table is
   * @return the columns by lower-case name, in table order; empty when the table is not visible
   * @throws SQLException when the catalog cannot be read
   */
  public static Map<String, Column> read(Connection c, SourceConfig source) throws SQLException {
    String sql =
        source.flavor() == SourceFlavor.POSTGRESQL
            // to_regclass resolves the name as the relay's own statements do (search_path).
            ? "SELECT LOWER(a.attname), a.atttypid::regtype::text,"
                + " format_type(a.atttypid, a.atttypmod) FROM pg_attribute a"
                + " WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped"
                + " ORDER BY a.attnum"
            : "SELECT LOWER(COLUMN_NAME), LOWER(DATA_TYPE), LOWER(COLUMN_TYPE)"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " ORDER BY ORDINAL_POSITION";
    Map<String, Column> columns = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (source.flavor() == SourceFlavor.POSTGRESQL) {
        ps.setString(1, source.table());
      } else {
        ps.setString(1, source.database());
        ps.setString(2, source.table());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Column col = new Column(rs.getString(1), lower(rs.getString(2)), lower(rs.getString(3)));
          columns.put(col.name(), col);
        }
      }
    }
    return columns;
  }

  /**
   * The columns the router reads whose type it cannot read, one line each naming the column, its
   * type and the type to give it. Missing columns are not reported here.
   *
   * @param columns the table's columns, from {@link #read}
   * @param flavor the database
   * @param mode the relay's mode
   * @param table the table, as messages name it
   * @return the problems, empty when every present column fits
   */
  public static List<String> typeProblems(
      Map<String, Column> columns, SourceFlavor flavor, RelayMode mode, String table) {
    boolean pg = flavor == SourceFlavor.POSTGRESQL;
    String ddl = pg ? "config/postgresql/outbox-schema.sql" : "config/mysql/outbox-schema.sql";
    List<String> problems = new ArrayList<>();
    if (mode == RelayMode.POLLING) {
      // Polling claims in id order and reads the id as a number; CDC only names it in messages.
      check(
          columns.get("id"),
          pg ? PG_INTEGER : MY_INTEGER,
          "an integer",
          pg ? "bigint GENERATED ALWAYS AS IDENTITY" : "BIGINT UNSIGNED AUTO_INCREMENT",
          table,
          ddl,
          problems);
    }
    Column eventId = columns.get("event_id");
    boolean uuidBytes =
        mode == RelayMode.CDC && eventId != null && "binary(16)".equals(eventId.declaredType());
    if (!uuidBytes) {
      check(
          eventId,
          pg ? union(PG_TEXT, Set.of("uuid")) : MY_TEXT,
          "text",
          pg ? "uuid" : mode == RelayMode.CDC ? "CHAR(36) (or BINARY(16))" : "CHAR(36)",
          table,
          ddl,
          problems);
    }
    for (String name : List.of("aggregate_type", "aggregate_id", "event_type")) {
      check(
          columns.get(name),
          pg ? PG_TEXT : union(MY_TEXT, Set.of("enum")),
          "text",
          pg ? "varchar(255)" : "VARCHAR(255)",
          table,
          ddl,
          problems);
    }
    check(
        columns.get("payload"),
        pg ? union(PG_TEXT, Set.of("json", "jsonb")) : union(MY_TEXT, Set.of("json")),
        "text",
        pg ? "jsonb, json or text" : "JSON or LONGTEXT",
        table,
        ddl,
        problems);
    // Optional; published as decimal text, which only an integer column gives in both modes.
    check(
        columns.get(AGGREGATE_VERSION),
        pg ? PG_INTEGER : MY_INTEGER,
        "an integer",
        pg ? "bigint NULL" : "BIGINT NULL",
        table,
        ddl,
        problems);
    return problems;
  }

  private static void check(
      Column column,
      Set<String> accepted,
      String kind,
      String expected,
      String table,
      String ddl,
      List<String> problems) {
    if (column == null || accepted.contains(column.dataType())) {
      return;
    }
    problems.add(
        "column "
            + table
            + "."
            + column.name()
            + " is "
            + column.declaredType()
            + ", which is not "
            + kind
            + ": make it "
            + expected
            + " as in "
            + ddl);
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new java.util.HashSet<>(a);
    all.addAll(b);
    return all;
  }

  private static String lower(String s) {
    return s == null ? "" : s.toLowerCase(Locale.ROOT);
  }
}
