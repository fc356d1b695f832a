package io.outboxrelay.writer;

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
  private final TraceContext traceContext;
  private final Object layoutLock = new Object();
  private volatile TableLayout layout;

  JdbcOutboxWriter(OutboxWriter.Builder builder, TraceContext traceContext) {
    this.config = copy(builder);
    this.traceContext = traceContext;
  }

  private static OutboxWriter.Builder copy(OutboxWriter.Builder b) {
    OutboxWriter.Builder c = OutboxWriter.builder();
    c.table = b.table;
    c.eventIdColumn = b.eventIdColumn;
    c.aggregateTypeColumn = b.aggregateTypeColumn;
    c.aggregateIdColumn = b.aggregateIdColumn;
    c.eventTypeColumn = b.eventTypeColumn;
    c.payloadColumn = b.payloadColumn;
    c.aggregateVersionColumn = b.aggregateVersionColumn;
    c.headersColumn = b.headersColumn;
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
    insert(connection, table, rows);
    List<String> ids = new ArrayList<>(count);
    for (Row row : rows) {
      ids.add(row.eventId());
    }
    return ids;
  }

  private TableLayout layout(Connection connection) throws SQLException {
    TableLayout known = layout;
    if (known != null) {
      return known;
    }
    synchronized (layoutLock) {
      if (layout == null) {
        layout = TableLayout.read(connection, config);
      }
      return layout;
    }
  }

  /**
   * The current trace headers that meet the rules of the headers column (all of them, normally).
   */
  private Map<String, String> traceHeaders() {
    Map<String, String> headers = traceContext.headers();
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
    String id = e.eventId() != null ? e.eventId() : UuidV7.shared().next().toString();
    return new Row(
        id,
        e.aggregateType(),
        e.aggregateId(),
        e.eventType(),
        payload,
        e.aggregateVersion(),
        HeadersJson.encode(headers));
  }

  /**
   * Inserts the rows in as few statements as the bounds allow. One statement is atomic on its own;
   * several are made so by a savepoint, rolled back to when one fails.
   */
  private static void insert(Connection connection, TableLayout table, List<Row> rows)
      throws SQLException {
    List<List<Row>> statements = split(rows);
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

  private static List<List<Row>> split(List<Row> rows) {
    List<List<Row>> statements = new ArrayList<>();
    int start = 0;
    long size = 0;
    for (int r = 0; r < rows.size(); r++) {
      long rowSize = rows.get(r).size();
      boolean full = r - start == MAX_ROWS || size + rowSize > MAX_STATEMENT_SIZE;
      if (r > start && full) {
        statements.add(rows.subList(start, r));
        start = r;
        size = 0;
      }
      size += rowSize;
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
