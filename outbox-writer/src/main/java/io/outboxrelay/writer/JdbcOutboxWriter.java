package io.outboxrelay.writer;

import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.OutboxColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The writer: checks a call's events, then inserts them with multi-row INSERTs. Thread-safe: its
 * settings are immutable and the table layout is read once, under a lock, and then shared.
 */
final class JdbcOutboxWriter implements OutboxWriter {

  /** Rows per INSERT statement at most. */
  static final int MAX_ROWS = 500;

  /** Characters of values per INSERT statement at most (one larger row has a statement alone). */
  static final long MAX_STATEMENT_SIZE = 2L << 20;

  static final String AUTO_COMMIT =
      "the connection is in auto-commit mode, so the event would commit on its own, apart from"
          + " the business change: call connection.setAutoCommit(false) and commit the change and"
          + " the event together (or append inside your transaction)";

  private final OutboxWriter.Builder config;
  private final CurrentTrace currentTrace;
  private final Object layoutLock = new Object();
  private volatile TableLayout layout;

  /** The server's max_allowed_packet, read with the layout; read again before a refusal. */
  private volatile long maxPacket = PacketLimit.NONE;

  JdbcOutboxWriter(OutboxWriter.Builder builder, CurrentTrace currentTrace) {
    this.config = copy(builder);
    this.currentTrace = currentTrace;
  }

  private static OutboxWriter.Builder copy(OutboxWriter.Builder b) {
    OutboxWriter.Builder c = OutboxWriter.builder();
    c.table = b.table;
    c.columns.putAll(b.columns);
    c.dialect = b.dialect;
    c.serializer = b.serializer;
    c.traceContext = b.traceContext;
    return c;
  }

  @Override
  public List<String> appendAll(Connection connection, List<NewEvent> events) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(events, "events");
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(AUTO_COMMIT);
    }
    if (events.isEmpty()) {
      return List.of();
    }
    EventCheck.checkAll(events);
    TableLayout table = layout(connection);
    table.checkFits(events, config);
    Map<String, String> trace = table.hasHeaders() ? traceHeaders() : Map.of();
    int count = events.size();
    List<Row> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(row(i, count, events.get(i), trace));
    }
    long limit = fitPackets(connection, table, events, rows);
    insert(connection, table, rows, limit);
    List<String> ids = new ArrayList<>(count);
    for (Row row : rows) {
      ids.add(row.eventId());
    }
    return ids;
  }

  @Override
  public void checkTable(Connection connection) throws SQLException {
    layout(Objects.requireNonNull(connection, "connection"));
  }

  private TableLayout layout(Connection connection) throws SQLException {
    TableLayout known = layout;
    if (known != null) {
      return known;
    }
    synchronized (layoutLock) {
      if (layout == null) {
        TableLayout read = TableLayout.read(connection, config);
        maxPacket = PacketLimit.read(connection, read.dialect());
        layout = read;
      }
      return layout;
    }
  }

  /**
   * Refuses the call when a row cannot fit in a statement under the server's max_allowed_packet
   * (the limit is read again first: it may have been raised since), and returns the limit to split
   * statements by.
   */
  private long fitPackets(
      Connection connection, TableLayout table, List<NewEvent> events, List<Row> rows)
      throws SQLException {
    long limit = maxPacket;
    for (int i = 0; i < rows.size(); i++) {
      Row row = rows.get(i);
      if (row.packetBytes() + PacketLimit.STATEMENT_OVERHEAD > limit) {
        limit = PacketLimit.read(connection, table.dialect());
        maxPacket = limit;
        if (row.packetBytes() + PacketLimit.STATEMENT_OVERHEAD > limit) {
          throw EventCheck.refuse(
              i, rows.size(), events.get(i), "payload", PacketLimit.problem(row, limit));
        }
      }
    }
    return limit;
  }

  /**
   * The current trace headers that meet the rules of the headers column (all of them, normally).
   */
  private Map<String, String> traceHeaders() {
    Map<String, String> headers = currentTrace.headers();
    if (headers.isEmpty()) {
      return headers;
    }
    Map<String, String> valid = new LinkedHashMap<>(headers);
    valid.entrySet().removeIf(h -> EventCheck.headerProblem(h.getKey(), h.getValue()) != null);
    return valid;
  }

  private Row row(int i, int count, NewEvent e, Map<String, String> trace) {
    String payload = Payloads.text(i, count, e, config.serializer);
    Map<String, String> headers = e.headers();
    if (!trace.isEmpty()) {
      Map<String, String> merged = new LinkedHashMap<>(headers);
      trace.forEach(merged::putIfAbsent);
      headers = merged;
    }
    Object[] values = new Object[OutboxColumn.values().length];
    for (OutboxColumn c : OutboxColumn.values()) {
      values[c.ordinal()] =
          switch (c) {
            case EVENT_ID -> e.eventId() != null ? e.eventId() : UuidV7.shared().next().toString();
            case PAYLOAD -> payload;
            case HEADERS -> ApplicationHeaders.encode(headers);
            default -> e.value(c);
          };
    }
    return new Row(values);
  }

  /**
   * Inserts the rows in as few statements as the bounds allow. One statement is atomic on its own;
   * several are made so by a savepoint, rolled back to when one fails.
   */
  private static void insert(
      Connection connection, TableLayout table, List<Row> rows, long maxPacket)
      throws SQLException {
    List<List<Row>> statements = split(rows, maxPacket);
    if (statements.size() == 1) {
      execute(connection, table, rows);
      return;
    }
    Savepoint savepoint = connection.setSavepoint();
    try {
      for (List<Row> statement : statements) {
        execute(connection, table, statement);
      }
    } catch (SQLException | RuntimeException failure) {
      try {
        connection.rollback(savepoint);
      } catch (SQLException rollbackFailure) {
        failure.addSuppressed(rollbackFailure);
      }
      throw failure;
    }
    connection.releaseSavepoint(savepoint);
  }

  /**
   * Splits the rows into statements of at most {@link #MAX_ROWS} rows, {@link #MAX_STATEMENT_SIZE}
   * characters and {@code maxPacket} bytes as sent (each row fits alone: {@link #fitPackets}).
   */
  static List<List<Row>> split(List<Row> rows, long maxPacket) {
    List<List<Row>> statements = new ArrayList<>();
    int start = 0;
    long size = 0;
    long bytes = PacketLimit.STATEMENT_OVERHEAD;
    for (int r = 0; r < rows.size(); r++) {
      Row row = rows.get(r);
      long rowSize = row.size();
      long rowBytes = row.packetBytes();
      boolean full =
          r - start == MAX_ROWS
              || size + rowSize > MAX_STATEMENT_SIZE
              || bytes + rowBytes > maxPacket;
      if (r > start && full) {
        statements.add(rows.subList(start, r));
        start = r;
        size = 0;
        bytes = PacketLimit.STATEMENT_OVERHEAD;
      }
      size += rowSize;
      bytes += rowBytes;
    }
    statements.add(rows.subList(start, rows.size()));
    return statements;
  }

  private static void execute(Connection connection, TableLayout table, List<Row> rows)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(table.insert(rows.size()))) {
      int index = 1;
      for (Row row : rows) {
        index = table.bind(ps, index, row);
      }
      ps.executeUpdate();
    }
  }

  @Override
  public String toString() {
    return "OutboxWriter[table=" + config.table + "]";
  }
}
