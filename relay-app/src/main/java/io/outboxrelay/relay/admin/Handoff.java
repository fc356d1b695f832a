package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.OffsetsDdl;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What both directions of {@code outbox-relay handoff} share: the table, its configuration, the
 * checks that the table has polling's columns, that no relay runs and that it is in the mode it is
 * handed from ({@link ModeOwnership}), and the record of the hand-off ({@link HandoffRecords}). Not
 * thread-safe; one instance per command.
 */
final class Handoff {

  /** What the command needs of the relay's user on MariaDB, for messages. */
  static final String NEEDS =
      "handoff needs, for source.user: SELECT, INSERT, UPDATE, DELETE on the outbox table, SELECT,"
          + " INSERT, DELETE on the offsets table, SELECT on the schema history and lease tables,"
          + " SELECT, INSERT, UPDATE on "
          + HandoffRecords.TABLE
          + ", REPLICATION SLAVE and BINLOG MONITOR (see"
          + " config/mysql/relay-grants.sql)";

  /** What the command needs of the relay's user on PostgreSQL, for messages. */
  static final String NEEDS_POSTGRES =
      "handoff needs, for source.user: SELECT, UPDATE on the outbox table, SELECT, INSERT, DELETE"
          + " on the offsets table, SELECT on the lease table, SELECT, INSERT, UPDATE on "
          + HandoffRecords.TABLE
          + " and the REPLICATION attribute (see config/postgresql/relay-grants.sql)";

  /** Rows read or changed per statement. */
  static final int BATCH = 1000;

  final RelayConfig config;
  final SourceConfig source;
  final PrintWriter out;
  final Operator operator;
  final SqlDialect dialect;

  /** The outbox table, {@code database.table}. */
  final String table;

  /** The outbox table as statements name it. */
  final String sqlTable;

  Handoff(RelayConfig config, PrintWriter out, Operator operator) {
    this.config = config;
    this.source = config.source();
    this.out = out;
    this.operator = operator;
    this.table = HandoffRecords.resourceOf(source);
    this.dialect = SqlDialect.of(source.flavor());
    this.sqlTable = dialect.qualifiedTable(source);
  }

  /**
   * Runs a direction's work on a connection of its own, and flushes the answer.
   *
   * @param work the work
   * @throws AdminException as the work throws, or when the database fails (exit 1)
   */
  void run(Connections.Work<Void> work) throws AdminException {
    Connections.run(
        source, "the hand-off of " + table, dialect.hasBinlog() ? NEEDS : NEEDS_POSTGRES, work);
    out.flush();
  }

  /**
   * Refuses a table without polling's columns.
   *
   * @return the table's columns, in table order
   */
  Set<String> requirePollingColumns(Connection c) throws SQLException, AdminException {
    Set<String> columns = OutboxColumns.read(c, source).keySet();
    c.rollback();
    List<String> missing =
        new ArrayList<>(
            List.of(
                source.sequenceColumn().toLowerCase(Locale.ROOT),
                "status",
                "published_at",
                "created_at"));
    missing.removeAll(columns);
    if (!missing.isEmpty()) {
      throw AdminException.usage(
          table
              + " has no column "
              + String.join(", ", missing)
              + ": polling mode needs its columns and indexes ("
              + dialect.outboxSchemaFile()
              + ") before a hand-off; nothing was changed");
    }
    return columns;
  }

  /**
   * The table's state, as the hand-off's refusals read it.
   *
   * @throws AdminException (exit 2) when the user may not read the hand-off or lease records
   */
  ModeOwnership.TableState state(Connection c, Set<String> columns)
      throws SQLException, AdminException {
    return readableState(c, config, columns, "which mode serves " + table);
  }

  /**
   * The table's state, for a command that must know it.
   *
   * @param question what the command cannot tell without it, for the message
   * @throws AdminException (exit 2) when the user may not read the hand-off or lease records
   */
  static ModeOwnership.TableState readableState(
      Connection c, RelayConfig config, Set<String> columns, String question)
      throws SQLException, AdminException {
    ModeOwnership.TableState state =
        ModeOwnership.read(c, config.source(), config.cdc().leaderTable(), columns);
    if (state.unreadable() != null) {
      throw AdminException.usage(
          "user '"
              + config.source().user()
              + "' may not read "
              + state.unreadable()
              + ", so the command cannot tell "
              + question
              + ": grant it as in "
              + SqlDialect.of(config.source().flavor()).configDirectory()
              + "/relay-grants.sql; nothing was changed");
    }
    return state;
  }

  /** Refuses, exit 2, when the table is not in the mode this direction hands from. */
  static void refuse(Optional<String> problem) throws AdminException {
    if (problem.isPresent()) {
      throw AdminException.usage(problem.get());
    }
  }

  /** Creates the hand-off record table when it is missing; exit 2 when the user may not. */
  void ensureRecordTable(Connection c) throws SQLException, AdminException {
    ensureTable(
        c,
        dialect,
        HandoffRecords.table(source),
        "hand-offs are recorded",
        () -> HandoffRecords.ensureTable(c, source));
  }

  /**
   * Creates the offsets table where it is missing, where a CDC relay stores its position; exit 2
   * when the user may not.
   *
   * @param dialect the source's dialect
   * @param table the offsets table, qualified or not
   */
  static void ensureOffsetsTable(Connection c, SqlDialect dialect, String table)
      throws SQLException, AdminException {
    ensureTable(
        c,
        dialect,
        table,
        "the CDC relay stores its position",
        () -> {
          try (Statement s = c.createStatement()) {
            try {
              s.executeQuery("SELECT 1 FROM " + table + " LIMIT 0").close();
              return; // there (relay-storage.sql, or a relay ran): CREATE needs no grant
            } catch (SQLException e) {
              if (!io.outboxrelay.relay.failure.SqlErrors.isMissingTable(e)) {
                throw e;
              }
              dialect.afterFailedStatement(c);
            }
            s.execute(OffsetsDdl.create(table));
          }
        });
  }

  /** Creating one of the relay's tables where it is missing. */
  interface TableCreation {
    void run() throws SQLException;
  }

  /**
   * Creates one of the relay's tables where it is missing, and commits; exit 2 when the user may
   * not.
   *
   * @param dialect the source's dialect
   * @param table the table, for the message
   * @param purpose what it holds: {@code where <purpose>}
   * @param creation what creates it where it is missing
   */
  static void ensureTable(
      Connection c, SqlDialect dialect, String table, String purpose, TableCreation creation)
      throws SQLException, AdminException {
    try {
      creation.run();
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      if (io.outboxrelay.relay.failure.SqlErrors.isSetupProblem(e)) {
        throw AdminException.usage(
            "cannot create "
                + table
                + ", where "
                + purpose
                + ": "
                + Connections.oneLine(e)
                + ". Create it with "
                + dialect.configDirectory()
                + "/relay-storage.sql, or grant the relay's user"
                + " CREATE; nothing was changed",
            e);
      }
      throw e;
    }
  }
}
