package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.relational.TableId;
import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where a relay resumes: the binlog position it stored in a previous run, read before the engine
 * starts, with the tables its schema history holds and whether it points inside a transaction.
 *
 * <p>Why: the position and schema history are keyed by {@code relay.name} alone. Started under the
 * same name for another {@code source.table}, Debezium would recover a history without that table
 * and fail at its first row ("schema isn't known to this connector"); the relay refuses to start
 * instead, saying why. Stateless apart from what it read; not thread-safe.
 *
 * <p>Reads Debezium's JDBC stores: an offsets row per logical name, whose key is the JSON {@code
 * ["<engine name>",{"server":"<relay.name>"}]}, and history records, JSON documents in chunks,
 * whose {@code source.server} is the relay's name and whose {@code tableChanges} name the tables.
 */
final class ResumePoint {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JsonNode offset;
  private final Set<String> tables;
  private final int historyRecords;

  private ResumePoint(JsonNode offset, History history) {
    this.offset = offset;
    this.tables = history.tables();
    this.historyRecords = history.records();
  }

  /** What the relay's schema history holds: its records and the tables they name. */
  private record History(int records, Set<String> tables) {}

  /**
   * Reads the stored position of a relay.
   *
   * @param source the source settings
   * @param cdc the CDC settings (table names)
   * @param relayName the relay's name
   * @return the position, or empty when there is none (a first start, or the row was deleted)
   * @throws SQLException when the tables cannot be read
   */
  static Optional<ResumePoint> read(SourceConfig source, CdcConfig cdc, String relayName)
      throws SQLException {
    // A term's start reads it too: bounded as the term's other connections (TermConnections).
    try (Connection c =
            DriverManager.getConnection(
                source.jdbcUrl()
                    + SqlDialect.of(source.flavor())
                        .socketTimeoutUrlParameter(PostgresReplication.SOCKET_TIMEOUT),
                source.user(),
                source.password().reveal());
        Statement st = c.createStatement()) {
      if (!BinlogPreflight.visible(c, source.database() + "." + cdc.offsetsTable())) {
        return Optional.empty(); // a first start: Debezium creates the table
      }
      Optional<JsonNode> offset = offset(st, cdc.offsetsTable(), relayName);
      if (offset.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new ResumePoint(offset.get(), historyIfAny(st, cdc, relayName)));
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTableCode(
          e)) { // no such table yet: Debezium creates it at the first start
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * The position a relay stored, as Debezium's offset JSON ({@code file}, {@code pos}, {@code
   * gtids}, {@code ts_sec}...), read on the caller's statement.
   *
   * @param st a statement on a connection to the source database
   * @param offsetsTable the offsets table
   * @param relayName the relay's name
   * @return the stored position (or a {@link HandoffMarker}), or empty when the relay stored none
   * @throws SQLException when the table cannot be read
   */
  static Optional<JsonNode> offset(Statement st, String offsetsTable, String relayName)
      throws SQLException {
    JsonNode offset = null;
    // Debezium's load order: the last row of a key wins.
    try (ResultSet rs =
        st.executeQuery(
            "SELECT offset_key, offset_val FROM "
                + offsetsTable
                + " ORDER BY record_insert_ts, record_insert_seq")) {
      while (rs.next()) {
        if (OffsetKey.belongsTo(rs.getString(1), relayName)) {
          offset = parse(rs.getString(2));
        }
      }
    }
    return Optional.ofNullable(offset);
  }

  /**
   * The relay's schema history; none when its table does not exist yet, as after {@code position
   * import} or {@code handoff --to cdc} for a relay that never ran (Debezium creates the table at
   * the first start). That is a position without schema history, not a first start.
   */
  private static History historyIfAny(Statement st, CdcConfig cdc, String relayName)
      throws SQLException {
    try {
      return history(st, cdc, relayName);
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTableCode(e)) {
        return new History(0, Set.of());
      }
      throw e;
    }
  }

  /** The history table's records, by id, each put together from its parts. */
  private static Map<String, StringBuilder> records(Statement st, String historyTable)
      throws SQLException {
    Map<String, StringBuilder> records = new LinkedHashMap<>();
    try (ResultSet rs =
        st.executeQuery(
            "SELECT id, history_data FROM " + historyTable + " ORDER BY id, history_data_seq")) {
      while (rs.next()) {
        records.computeIfAbsent(rs.getString(1), id -> new StringBuilder()).append(rs.getString(2));
      }
    }
    return records;
  }

  /**
   * Deletes the relay's records from the schema history table, in the caller's transaction: a first
   * start stores a position of now, and a history an earlier run left (its position deleted to
   * start afresh, or for another {@code source.table}) would describe the tables as they were then,
   * or not describe this one at all. Without records the engine reads the table's definition as it
   * is now ({@link #withoutSchemaHistory}). Other relays' records stay.
   *
   * @param c the connection, auto-commit off
   * @param historyTable the schema history table
   * @param relayName {@code relay.name}
   * @return how many records were deleted (0 also when the table does not exist yet)
   * @throws SQLException when the table cannot be read or written
   */
  static int deleteHistory(Connection c, String historyTable, String relayName)
      throws SQLException {
    List<String> own = new ArrayList<>();
    try (Statement st = c.createStatement()) {
      for (Map.Entry<String, StringBuilder> r : records(st, historyTable).entrySet()) {
        if (relayName.equals(serverOf(parse(r.getValue().toString()).path("source")))) {
          own.add(r.getKey());
        }
      }
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTableCode(e)) {
        return 0;
      }
      throw e;
    }
    try (PreparedStatement delete =
        c.prepareStatement("DELETE FROM " + historyTable + " WHERE id = ?")) {
      for (String id : own) {
        delete.setString(1, id);
        delete.executeUpdate();
      }
    }
    return own.size();
  }

  private static History history(Statement st, CdcConfig cdc, String relayName)
      throws SQLException {
    Map<String, StringBuilder> records = records(st, cdc.schemaHistoryTable());
    Set<String> tables = new TreeSet<>();
    int own = 0;
    for (StringBuilder text : records.values()) {
      JsonNode record = parse(text.toString());
      if (relayName.equals(serverOf(record.path("source")))) {
        own++;
        for (JsonNode change : record.path("tableChanges")) {
          TableId id = TableId.parse(change.path("id").asText(""));
          if (id != null && id.table() != null) {
            tables.add(id.catalog() + "." + id.table());
          }
        }
      }
    }
    return new History(own, tables);
  }

  private static String serverOf(JsonNode node) {
    JsonNode server = node.path("server");
    return server.isTextual() ? server.asText() : null;
  }

  private static JsonNode parse(String text) {
    if (text == null) {
      return JSON.missingNode();
    }
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      return JSON.missingNode(); // not Debezium's: not ours to judge
    }
  }

  /**
   * Whether what is stored is no position but {@code handoff --to cdc}'s marker: the next start is
   * a first start that publishes the rows polling left unpublished ({@link FirstStart}); the engine
   * must never start on it.
   */
  boolean handoffPending() {
    return HandoffMarker.is(offset);
  }

  /** When the pending hand-off ran, as its marker says; empty when none is pending. */
  String handoffTime() {
    return offset.path(HandoffMarker.FIELD).asText("");
  }

  /**
   * Whether the relay's schema history knows the relay's outbox table: its engine streamed that
   * table before (a relay whose position was deleted since, not one that never ran, nor one that
   * served another table under the same name).
   *
   * @param source the source settings
   * @param cdc the CDC settings (table names)
   * @param relayName the relay's name
   * @return false when there is no history table, no record of the relay in it, or none of this
   *     table
   * @throws SQLException when the table cannot be read
   */
  static boolean streamedTableBefore(SourceConfig source, CdcConfig cdc, String relayName)
      throws SQLException {
    try (Connection c =
            DriverManager.getConnection(
                source.jdbcUrl(), source.user(), source.password().reveal());
        Statement st = c.createStatement()) {
      History history = historyIfAny(st, cdc, relayName);
      String wanted = source.database() + "." + source.table();
      return history.records() > 0 && history.tables().stream().anyMatch(wanted::equalsIgnoreCase);
    }
  }

  /**
   * The tables the relay's schema history knows, as {@code database.table}; empty when it holds
   * none (then nothing can be concluded).
   */
  Set<String> tables() {
    return tables;
  }

  /**
   * Whether the relay's schema history holds no record at all: the position was stored by the
   * relay's first start or by {@code outbox-relay position import} for a relay that never ran, so
   * the engine must take the tables' definitions as they are now ({@code snapshot.mode=recovery})
   * before it streams from it.
   */
  boolean withoutSchemaHistory() {
    return historyRecords == 0;
  }

  /**
   * Whether the stored position belongs to another table than {@code database.table}: the history
   * knows tables, and not this one (names compare without regard to case, as Debezium's filters
   * do).
   */
  boolean belongsToAnotherTable(String database, String table) {
    String wanted = database + "." + table;
    return !tables.isEmpty() && tables.stream().noneMatch(wanted::equalsIgnoreCase);
  }

  /**
   * Where the position is, for log lines: {@code file:position} and the GTIDs when there are.
   *
   * @return e.g. {@code mariadb-bin.000003:4567, GTIDs 0-1-42}
   */
  String describe() {
    String gtids = offset.path("gtids").asText("");
    return offset.path("file").asText("?")
        + ":"
        + offset.path("pos").asText("?")
        + (gtids.isEmpty() ? "" : ", GTIDs " + gtids);
  }

  /**
   * How many binlog events of the transaction the position points into were published before the
   * stop; Debezium skips them on restart.
   *
   * @return 0 when the position is between transactions
   */
  long eventsToSkip() {
    return offset.path("event").asLong(0);
  }

  /** How many rows of the next event after {@link #eventsToSkip()} events were published. */
  long rowsToSkip() {
    return offset.path("row").asLong(0);
  }
}
