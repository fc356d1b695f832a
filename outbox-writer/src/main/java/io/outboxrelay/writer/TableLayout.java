package io.outboxrelay.writer;

import io.outboxrelay.router.Dialect;
import io.outboxrelay.router.OutboxColumn;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The outbox table as the writer found it on first use: its dialect, which optional columns it has,
 * and the INSERT statement that follows. Immutable.
 */
final class TableLayout {

  private final Dialect dialect;
  private final String table;

  /** The columns the INSERT writes, in {@link OutboxColumn} order. */
  private final List<OutboxColumn> written;

  private final boolean binaryEventId;
  private final String prefix;
  private final String rowValues;
  private final String singleRowInsert;

  private TableLayout(
      Dialect dialect,
      String table,
      List<OutboxColumn> written,
      List<String> columns,
      boolean binaryEventId) {
    this.dialect = dialect;
    this.table = table;
    this.written = List.copyOf(written);
    this.binaryEventId = binaryEventId;
    StringBuilder names = new StringBuilder();
    StringBuilder values = new StringBuilder("(");
    for (String column : columns) {
      if (names.length() > 0) {
        names.append(", ");
        values.append(", ");
      }
      names.append(dialect.quote(column));
      values.append('?');
    }
    this.prefix = "INSERT INTO " + dialect.quote(table) + " (" + names + ") VALUES ";
    this.rowValues = values.append(')').toString();
    this.singleRowInsert = prefix + rowValues;
  }

  /**
   * Reads the table's columns with a query that returns no row.
   *
   * @throws SQLException if the table cannot be read, with a message saying what to do
   * @throws IllegalStateException if a required column is missing
   */
  static TableLayout read(Connection c, OutboxWriter.Builder config) throws SQLException {
    Dialect dialect = dialect(c, config.dialect);
    List<String> names = new ArrayList<>();
    List<Integer> types = new ArrayList<>();
    String sql = "SELECT * FROM " + dialect.quote(config.table) + " WHERE 1 = 0";
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int k = 1; k <= meta.getColumnCount(); k++) {
        names.add(meta.getColumnName(k));
        types.add(meta.getColumnType(k));
      }
    } catch (SQLException e) {
      throw new SQLException(
          "cannot read the outbox table "
              + config.table
              + " ("
              + oneLine(e.getMessage())
              + "): create it from config/"
              + dialect.schemaFolder()
              + "/outbox-schema.sql, or name yours with OutboxWriter.Builder.table(...)",
          e.getSQLState(),
          e.getErrorCode(),
          e);
    }
    Columns found = new Columns(dialect, config.table, names, types);
    List<OutboxColumn> written = new ArrayList<>();
    List<String> columns = new ArrayList<>();
    for (Map.Entry<OutboxColumn, String> entry : config.columns.entrySet()) {
      String column = entry.getValue();
      if (entry.getKey().required()) {
        found.require(column, OutboxWriter.Builder.setting(entry.getKey()));
      } else if (!found.has(column)) {
        continue; // optional: written only where the table has it
      }
      written.add(entry.getKey());
      columns.add(column);
    }
    String eventIdColumn = config.columns.get(OutboxColumn.EVENT_ID);
    int idType = found.type(eventIdColumn);
    boolean binaryId =
        dialect == Dialect.MYSQL && (idType == Types.BINARY || idType == Types.VARBINARY);
    return new TableLayout(dialect, config.table, written, columns, binaryId);
  }

  /** A driver's message on one line (PostgreSQL's spans several: the error, then its position). */
  private static String oneLine(String message) {
    return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  /**
   * The configured dialect after checking it against the database product, or the product's.
   * Without the check a PostgreSQL dialect on MariaDB fails on the quoting, and the message would
   * point to the PostgreSQL DDL.
   */
  static Dialect dialect(Connection c, Dialect configured) throws SQLException {
    String product = c.getMetaData().getDatabaseProductName();
    if (configured == null) {
      return Dialect.fromProductName(product);
    }
    Dialect detected;
    try {
      detected = Dialect.fromProductName(product);
    } catch (IllegalArgumentException unknown) {
      // A product of its own name speaking a supported dialect: the configuration says which.
      return configured;
    }
    if (detected != configured) {
      throw new IllegalStateException(
          "the outbox writer is configured with dialect "
              + configured
              + " but the database is "
              + product
              + ", which speaks "
              + detected
              + ": set the dialect to "
              + detected
              + " (OutboxWriter.Builder.dialect(Dialect."
              + detected
              + "), outbox.writer.dialect="
              + detected.name().toLowerCase(Locale.ROOT)
              + " in Spring Boot) or leave it unset to detect it");
    }
    return configured;
  }

  /** The columns a query returned; names compared as the dialect does for quoted identifiers. */
  private record Columns(Dialect dialect, String table, List<String> names, List<Integer> types) {

    int indexOf(String column) {
      for (int k = 0; k < names.size(); k++) {
        boolean same =
            dialect == Dialect.MYSQL
                ? names.get(k).equalsIgnoreCase(column)
                : names.get(k).equals(column);
        if (same) {
          return k;
        }
      }
      return -1;
    }

    boolean has(String column) {
      return column != null && indexOf(column) >= 0;
    }

    int type(String column) {
      return types.get(indexOf(column));
    }

    String require(String column, String setting) {
      if (!has(column)) {
        throw new IllegalStateException(
            "the outbox table "
                + table
                + " has no column "
                + column
                + (dialect == Dialect.POSTGRESQL && !column.equals(column.toLowerCase(Locale.ROOT))
                    ? " (names are quoted: PostgreSQL keeps unquoted names in lower case)"
                    : "")
                + "; its columns are "
                + names
                + ": name the column with OutboxWriter.Builder."
                + setting
                + "(...), or create the table from the project's outbox-schema.sql");
      }
      return column;
    }
  }

  Dialect dialect() {
    return dialect;
  }

  boolean hasHeaders() {
    return written.contains(OutboxColumn.HEADERS);
  }

  /**
   * Refuses events this table cannot hold: a version or headers without their column, a caller's id
   * that is not a UUID for a binary id column.
   */
  void checkFits(List<NewEvent> events, OutboxWriter.Builder config) {
    int count = events.size();
    for (int i = 0; i < count; i++) {
      NewEvent e = events.get(i);
      for (OutboxColumn c : config.columns.keySet()) {
        Object value = e.value(c);
        if (value != null && !c.required() && !written.contains(c)) {
          throw EventCheck.refuse(
              i,
              count,
              e,
              c.defaultName(),
              "the event has "
                  + c.defaultName()
                  + " "
                  + (value instanceof Map<?, ?> headers ? headers.keySet() : value)
                  + " but "
                  + missing(config.columns.get(c), OutboxWriter.Builder.setting(c))
                  + ": add the column (see docs/upgrading.md) or leave the "
                  + c.defaultName()
                  + " out");
        }
      }
      if (binaryEventId && e.eventId() != null && !isUuid(e.eventId())) {
        throw EventCheck.refuse(
            i,
            count,
            e,
            "event_id",
            "the event id '"
                + e.eventId()
                + "' is not a UUID, and the table's event id column is binary (BINARY(16)):"
                + " give a UUID, or none for a new UUIDv7");
      }
    }
  }

  private String missing(String column, String setting) {
    return column == null
        ? "the writer is built without that column (" + setting + "(null))"
        : "the outbox table " + table + " has no column " + column;
  }

  private static boolean isUuid(String id) {
    try {
      return id.length() == 36 && UUID.fromString(id).toString().equalsIgnoreCase(id);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The INSERT of {@code rows} rows. */
  String insert(int rows) {
    if (rows == 1) {
      return singleRowInsert;
    }
    StringBuilder sql = new StringBuilder(prefix.length() + rows * (rowValues.length() + 2));
    sql.append(prefix).append(rowValues);
    for (int r = 1; r < rows; r++) {
      sql.append(", ").append(rowValues);
    }
    return sql.toString();
  }

  /**
   * Binds one row's values from parameter {@code index} on.
   *
   * @return the next parameter index
   */
  int bind(PreparedStatement ps, int index, Row row) throws SQLException {
    int k = index;
    for (OutboxColumn c : written) {
      Object value = row.values()[c.ordinal()];
      switch (c.kind()) {
        case EVENT_ID -> {
          if (binaryEventId) {
            UUID id = UUID.fromString((String) value);
            ps.setBytes(
                k,
                ByteBuffer.allocate(16)
                    .putLong(id.getMostSignificantBits())
                    .putLong(id.getLeastSignificantBits())
                    .array());
          } else {
            text(ps, k, (String) value);
          }
        }
        case INTEGER -> {
          if (value == null) {
            ps.setNull(k, Types.BIGINT);
          } else {
            ps.setLong(k, (Long) value);
          }
        }
        // Text the server may convert to the column's type (uuid, jsonb, json, text).
        case PAYLOAD, JSON -> text(ps, k, (String) value);
        case TEXT, PLAIN_TEXT -> ps.setString(k, (String) value);
      }
      k++;
    }
    return k;
  }

  /**
   * Binds text for a column that may be of a non-text type: on PostgreSQL with an unspecified type,
   * so that the server converts it to the column's type ({@code uuid}, {@code jsonb}, {@code json},
   * {@code text}) whatever the connection's {@code stringtype}.
   */
  private void text(PreparedStatement ps, int index, String value) throws SQLException {
    if (dialect == Dialect.POSTGRESQL) {
      if (value == null) {
        ps.setNull(index, Types.OTHER);
      } else {
        ps.setObject(index, value, Types.OTHER);
      }
    } else if (value == null) {
      ps.setNull(index, Types.VARCHAR);
    } else {
      ps.setString(index, value);
    }
  }
}
