package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.RelayConfigKeys;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The outbox table's columns and their types, and whether the router can read the columns it needs.
 * Which column holds what is the {@link ColumnMapping} of {@code source.column.*} ({@link
 * SourceConfig#columns()}); {@link #mapped} lists the columns a mode reads with the key that names
 * each. A column of the wrong type passes every privilege check and fails only at the first row (in
 * CDC a {@code ClassCastException}, and with {@code cdc.poison.action=skip} every row would be
 * dropped), so both modes check the types at start, and a mapped column missing from the table is
 * one line naming the key and the column ({@link #missingProblems}).
 *
 * <p>What each mode can read: the router takes the event id, aggregate type, aggregate id and event
 * type as text, and publishes the payload's text as its bytes. CDC gets these values from Debezium,
 * which gives text only for text and {@code ENUM} columns (and raw bytes for {@code BINARY(16)}
 * event ids, read as a UUID); polling reads the values as text and the sequence column as a number.
 * Binary payloads are refused in both modes: polling would decode them as UTF-8, and CDC's bytes
 * would depend on Debezium's {@code binary.handling.mode}, so the two modes would publish different
 * bytes. The optional aggregate version column must be an integer, the application headers column
 * text or JSON, the trace context column text; a placed column text, an integer, or a {@code
 * DATETIME}/{@code TIMESTAMP} (PostgreSQL: {@code timestamp}, {@code timestamptz}), the types whose
 * text both modes write alike. Stateless.
 */
public final class OutboxColumns {

  /** One column: its name (lower case), its base type and its full declared type. */
  public record Column(String name, String dataType, String declaredType) {}

  /**
   * A column the relay reads in a mode.
   *
   * @param what what it holds, for messages: {@code the aggregate type}
   * @param key the configuration key that names it
   * @param column its name
   * @param required whether the table must have it (otherwise it is read when present)
   * @param placed whether it is a column placed as a header
   */
  public record Mapped(String what, String key, String column, boolean required, boolean placed) {}

  private OutboxColumns() {}

  /**
   * The columns a mode reads, in the order of the keys: the sequence (required in polling mode; CDC
   * reads it when present, for messages), the required columns, the optional ones (required when
   * their key is set, see {@link SourceConfig#requiredOptionalColumns()}), then the placed columns.
   *
   * @param source the source settings
   * @param mode the relay's mode
   * @return the columns
   */
  public static List<Mapped> mapped(SourceConfig source, RelayMode mode) {
    ColumnMapping m = source.columns();
    Set<String> given = source.requiredOptionalColumns();
    List<Mapped> list = new ArrayList<>();
    list.add(
        new Mapped(
            "the row sequence",
            RelayConfigKeys.COLUMN_SEQUENCE.name(),
            source.sequenceColumn(),
            mode == RelayMode.POLLING,
            false));
    for (OutboxColumn c : OutboxColumn.values()) {
      String column = m.column(c);
      list.add(
          new Mapped(
              c.what(),
              RelayConfigKeys.COLUMNS.get(c).name(),
              column,
              c.required() || given.contains(column),
              false));
    }
    for (HeaderPlacement p : m.placements()) {
      list.add(
          new Mapped(
              "a header",
              RelayConfigKeys.COLUMN_ADDITIONAL_PLACEMENT.name(),
              p.column(),
              true,
              true));
    }
    return list;
  }

  /**
   * The required columns the table lacks, one line each naming the column and the key that names
   * it.
   *
   * @param columns the table's columns, from {@link #read}
   * @param source the source settings
   * @param mode the relay's mode
   * @param table the table, as messages name it
   * @param ddl the DDL file to point to
   * @return the problems, empty when every required column is there
   */
  public static List<String> missingProblems(
      Map<String, Column> columns, SourceConfig source, RelayMode mode, String table, String ddl) {
    List<String> problems = new ArrayList<>();
    Set<String> reported = new HashSet<>();
    for (Mapped m : mapped(source, mode)) {
      if (!m.required() || has(columns, m.column()) || !reported.add(m.column() + m.key())) {
        continue;
      }
      problems.add(
          "table "
              + table
              + " has no column "
              + m.column()
              + " ("
              + m.key()
              + ", "
              + m.what()
              + "): create it as in "
              + ddl
              + (m.placed()
                  ? ", or remove it from " + m.key()
                  : ", or set " + m.key() + " to the column that holds " + m.what()));
    }
    return problems;
  }

  /**
   * The column's entry, its name compared without regard to case.
   *
   * @param columns the table's columns, from {@link #read}
   * @param name a column name
   * @return the column, or {@code null} when the table has none of that name
   */
  public static Column find(Map<String, Column> columns, String name) {
    return columns.get(name.toLowerCase(Locale.ROOT));
  }

  /**
   * Whether the table has the column.
   *
   * @param columns the table's columns, from {@link #read}
   * @param name a column name
   * @return true when it is there
   */
  public static boolean has(Map<String, Column> columns, String name) {
    return find(columns, name) != null;
  }

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

  /**
   * Reads the outbox table's columns, as the relay's user sees them.
   *
   * @param c a connection as the relay's user
   * @param source where the table is
   * @return the columns by lower-case name, in table order; empty when the table is not visible
   * @throws SQLException when the catalog cannot be read
   */
  public static Map<String, Column> read(Connection c, SourceConfig source) throws SQLException {
    SqlDialect dialect = SqlDialect.of(source.flavor());
    Map<String, Column> columns = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.columnsQuery())) {
      dialect.bindTable(ps, 1, source);
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
   * Why the sequence column cannot name rows, or {@code null}: polling leases, renews and marks
   * rows by their sequence values ({@code WHERE id IN (...)}), and retention and the operator
   * commands delete and change rows by them, so rows sharing a value are marked {@code PUBLISHED}
   * together though only one of them was published. The column must be the primary key or the only
   * column of a unique index (a partial PostgreSQL index does not count).
   *
   * @param c a connection as the relay's user
   * @param source where the table is, and its sequence column
   * @param table the table, as messages name it
   * @return one line saying what to do, or {@code null} when the column is unique (or missing: that
   *     is reported on its own)
   * @throws SQLException when the catalog cannot be read
   */
  public static String sequenceUniquenessProblem(Connection c, SourceConfig source, String table)
      throws SQLException {
    String column = source.sequenceColumn().toLowerCase(Locale.ROOT);
    SqlDialect dialect = SqlDialect.of(source.flavor());
    try (PreparedStatement ps = c.prepareStatement(dialect.singleColumnUniqueIndexesQuery())) {
      ps.setString(dialect.bindTable(ps, 1, source), column);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && rs.getLong(1) > 0) {
          return null;
        }
      }
    }
    return RelayConfigKeys.COLUMN_SEQUENCE.name()
        + "="
        + source.sequenceColumn()
        + " is neither the primary key of "
        + table
        + " nor the only column of a unique index: polling marks rows and retention deletes them by"
        + " it, so rows sharing a value would be marked PUBLISHED (or deleted) together though only"
        + " one was published; set"
        + " it to the table's AUTO_INCREMENT (identity) key, or add a unique index (CREATE UNIQUE"
        + " INDEX ux_"
        + source.table().replaceAll("\\W", "_")
        + "_"
        + column
        + " ON "
        + table
        + " ("
        + column
        + ")) once its values are unique";
  }

  /**
   * The type problems of the relay's own layout ({@link ColumnMapping#DEFAULT}).
   *
   * @param columns the table's columns, from {@link #read}
   * @param dialect the database
   * @param mode the relay's mode
   * @param table the table, as messages name it
   * @return the problems, empty when every present column fits
   */
  public static List<String> typeProblems(
      Map<String, Column> columns, SqlDialect dialect, RelayMode mode, String table) {
    return typeProblems(columns, dialect, ColumnMapping.DEFAULT, "id", mode, table);
  }

  /**
   * The columns the router reads whose type it cannot read, one line each naming the column, its
   * type and the type to give it. Missing columns are not reported here.
   *
   * @param columns the table's columns, from {@link #read}
   * @param dialect the database
   * @param mapping which columns hold what
   * @param sequence the sequence column
   * @param mode the relay's mode
   * @param table the table, as messages name it
   * @return the problems, empty when every present column fits
   */
  public static List<String> typeProblems(
      Map<String, Column> columns,
      SqlDialect dialect,
      ColumnMapping mapping,
      String sequence,
      RelayMode mode,
      String table) {
    ColumnTypes types = dialect.columnTypes();
    String ddl = dialect.outboxSchemaFile();
    List<String> problems = new ArrayList<>();
    if (mode == RelayMode.POLLING) {
      // Polling claims in sequence order and reads it as a number; CDC only names it in messages.
      check(
          find(columns, sequence),
          types.integer(),
          "an integer",
          types.sequenceDdl(),
          table,
          ddl,
          problems);
    }
    for (OutboxColumn c : OutboxColumn.values()) {
      Column column = find(columns, mapping.column(c));
      boolean uuidBytes =
          c.kind() == OutboxColumn.Kind.EVENT_ID
              && mode == RelayMode.CDC
              && column != null
              && "binary(16)".equals(column.declaredType());
      if (!uuidBytes) {
        ColumnTypes.Fit fit = types.fit(c.kind(), mode);
        check(column, fit.accepted(), fit.kind(), fit.ddl(), table, ddl, problems);
      }
    }
    for (HeaderPlacement p : mapping.placements()) {
      Column column = find(columns, p.column());
      if (column != null && !types.placeable().contains(column.dataType())) {
        problems.add(
            columnIs(table, column)
                + ", which cannot be published as the header "
                + p.header()
                + ": place a text, integer or "
                + types.timeTypes()
                + " column ("
                + RelayConfigKeys.COLUMN_ADDITIONAL_PLACEMENT.name()
                + ")");
      }
    }
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
        columnIs(table, column)
            + ", which is not "
            + kind
            + ": make it "
            + expected
            + " as in "
            + ddl);
  }

  /** {@code column <table>.<name> is <declared type>}, for messages. */
  private static String columnIs(String table, Column column) {
    return "column " + table + "." + column.name() + " is " + column.declaredType();
  }

  private static String lower(String s) {
    return s == null ? "" : s.toLowerCase(Locale.ROOT);
  }
}
