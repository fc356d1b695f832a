package io.outboxrelay.relay.admin;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The unpublished outbox rows, copied whole so that they can be deleted and inserted again: a CDC
 * relay publishes inserts only, so an insert in the binlog is how a row already in the table is put
 * in front of it. Values travel as the driver's text (binary columns as bytes), which the same
 * session reads back unchanged. Not thread-safe.
 */
final class RowCopy {

  private final List<String> columns;
  private final List<Boolean> binary;
  private final List<Object[]> rows;
  private final String idColumn;

  private RowCopy(
      List<String> columns, List<Boolean> binary, List<Object[]> rows, String idColumn) {
    this.columns = columns;
    this.binary = binary;
    this.rows = rows;
    this.idColumn = idColumn;
  }

  /**
   * Reads the {@code PENDING} and {@code PROCESSING} rows {@code FOR UPDATE}, in id order. At
   * REPEATABLE READ the read's next-key locks make the application's new outbox rows wait for the
   * transaction's end, and it waits for rows inserted but not yet committed.
   *
   * @param c a connection in a REPEATABLE READ transaction
   * @param table the outbox table, qualified
   * @param idColumn the sequence column, which orders the rows ({@code source.column.sequence})
   * @return the rows
   */
  static RowCopy lockUnpublished(Connection c, String table, String idColumn) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT * FROM "
                    + table
                    + " WHERE status IN ('PENDING', 'PROCESSING') FOR UPDATE");
        ResultSet rs = ps.executeQuery()) {
      ResultSetMetaData meta = rs.getMetaData();
      List<String> columns = new ArrayList<>();
      List<Boolean> binary = new ArrayList<>();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        columns.add(meta.getColumnName(i));
        int type = meta.getColumnType(i);
        binary.add(
            type == Types.BINARY
                || type == Types.VARBINARY
                || type == Types.LONGVARBINARY
                || type == Types.BLOB);
      }
      List<Object[]> rows = new ArrayList<>();
      while (rs.next()) {
        Object[] row = new Object[columns.size()];
        for (int i = 0; i < row.length; i++) {
          row[i] = binary.get(i) ? rs.getBytes(i + 1) : rs.getString(i + 1);
        }
        rows.add(row);
      }
      // Sorted here, not by the query: ORDER BY id could make it scan (and lock) the whole table
      // through the primary key instead of the (status, id) index.
      int id = indexOf(columns, idColumn);
      rows.sort(java.util.Comparator.comparingLong(r -> Long.parseLong((String) r[id])));
      return new RowCopy(columns, binary, rows, idColumn);
    }
  }

  private static int indexOf(List<String> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).equalsIgnoreCase(name)) {
        return i;
      }
    }
    throw new IllegalStateException("the outbox table has no column " + name);
  }

  /** How many rows were read. */
  int size() {
    return rows.size();
  }

  /**
   * Deletes the rows and inserts them again in id order, unchanged but {@code PENDING}.
   *
   * @param c the connection of {@link #lockUnpublished}, in the same transaction
   * @param table the outbox table, qualified
   * @param batch rows per statement
   */
  void reinsert(Connection c, String table, int batch) throws SQLException {
    int id = indexOf(columns, idColumn);
    for (int from = 0; from < rows.size(); from += batch) {
      List<Object[]> part = rows.subList(from, Math.min(rows.size(), from + batch));
      StringBuilder delete =
          new StringBuilder("DELETE FROM " + table + " WHERE " + idColumn + " IN (");
      for (int i = 0; i < part.size(); i++) {
        delete.append(i == 0 ? "?" : ",?");
      }
      try (PreparedStatement ps = c.prepareStatement(delete.append(')').toString())) {
        for (int i = 0; i < part.size(); i++) {
          ps.setLong(i + 1, Long.parseLong((String) part.get(i)[id]));
        }
        ps.executeUpdate();
      }
    }
    int status = indexOf(columns, "status");
    String insert =
        "INSERT INTO "
            + table
            + " ("
            + String.join(", ", columns)
            + ") VALUES ("
            + "?,".repeat(columns.size() - 1)
            + "?)";
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      for (Object[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          Object v = i == status ? "PENDING" : row[i];
          if (v == null) {
            ps.setNull(i + 1, Types.NULL);
          } else if (binary.get(i)) {
            ps.setBytes(i + 1, (byte[]) v);
          } else {
            ps.setString(i + 1, (String) v);
          }
        }
        ps.executeUpdate();
      }
    }
  }
}
