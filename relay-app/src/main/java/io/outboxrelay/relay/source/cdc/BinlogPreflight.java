package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.leader.RivalLeadership;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Startup checks for CDC mode, run as the relay's own database user before the engine starts. Each
 * missing thing becomes one line saying what to change: binlog enabled, {@code binlog_format=ROW},
 * {@code binlog_row_image=FULL}, durable binlog settings, the replication grants, read access to
 * the outbox table, its columns and their types, and access to the position tables. A table that is
 * polling's ({@link ModeOwnership}) is one of these problems too: handed to polling, published from
 * by a polling relay, or served by polling and never handed to CDC; and so is a live leadership of
 * this relay in another leases table ({@link RivalLeadership}: replicas that disagree on {@code
 * cdc.leader.table}). The checks run on the connection the start waited for ({@link
 * io.outboxrelay.relay.source.StartSequence}), which has already turned a wrong password or a host
 * that does not resolve into a problem ({@link SourceConnections#awaitOpen}). Stateless.
 */
final class BinlogPreflight {

  private static final Logger LOG = LoggerFactory.getLogger(BinlogPreflight.class);

  /** What the checks found. */
  record Result(List<String> problems, List<String> warnings) {}

  private BinlogPreflight() {}

  /**
   * Runs the checks.
   *
   * @param c a connection as the relay's user, auto-commit on; the caller's, which closes it
   * @param source the source settings
   * @param cdc the CDC settings
   * @param relayName the relay's {@code relay.name}
   * @return problems (the relay must not start) and warnings
   * @throws SQLException when the database fails during the checks
   */
  static Result check(Connection c, SourceConfig source, CdcConfig cdc, String relayName)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    checkBinlog(c, source, cdc, problems, warnings);
    checkGrants(c, source, problems);
    Set<String> columns = checkOutboxTable(c, source, problems);
    checkStorageTable(c, source, cdc.offsetsTable(), problems);
    checkStorageTable(c, source, cdc.schemaHistoryTable(), problems);
    // Leadership: taken with INSERT, renewed, handed over and given up with UPDATE.
    checkStorageTable(
        c,
        source,
        cdc.leaderTable(),
        "UPDATE %s SET renewed_at = renewed_at WHERE 1 = 0",
        "UPDATE",
        problems);
    checkRetentionColumns(source, cdc, columns, problems);
    if (!cdc.retention().isZero()
        && columns.contains(source.sequenceColumn().toLowerCase(Locale.ROOT))) {
      // Retention deletes published rows by their sequence values.
      String notUnique =
          OutboxColumns.sequenceUniquenessProblem(
              c, source, source.database() + "." + source.table());
      if (notUnique != null) {
        problems.add(notUnique);
      }
    }
    if (problems.isEmpty()) {
      checkOwnership(c, source, cdc, relayName, columns, problems, warnings);
    }
    return new Result(problems, warnings);
  }

  /** A problem unless the server variable has the wanted value (in any case). */
  private static void requireSetting(
      List<String> problems,
      String where,
      String variable,
      String value,
      String wanted,
      String because) {
    if (!wanted.equalsIgnoreCase(value)) {
      problems.add(
          variable
              + " is "
              + value
              + " "
              + where
              + ": set "
              + variable
              + "="
              + wanted
              + because
              + ", e.g. SET GLOBAL "
              + variable
              + "="
              + wanted
              + " and in my.cnf");
    }
  }

  private static void checkBinlog(
      Connection c,
      SourceConfig source,
      CdcConfig cdc,
      List<String> problems,
      List<String> warnings)
      throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@sync_binlog,"
                    + " @@innodb_flush_log_at_trx_commit, @@server_id")) {
      rs.next();
      String where = "on " + source.describe();
      if (!truthy(rs.getString(1))) {
        problems.add(
            "the binary log is off "
                + where
                + ": set log_bin (and binlog_format=ROW,"
                + " binlog_row_image=FULL) in the server's my.cnf and restart it; see"
                + " config/mysql/binlog.cnf");
        return; // the other settings do not matter yet
      }
      requireSetting(
          problems, where, "binlog_format", rs.getString(2), "ROW", " (CDC needs row events)");
      requireSetting(problems, where, "binlog_row_image", rs.getString(3), "FULL", "");
      List<String> durability = new ArrayList<>();
      if (rs.getInt(4) != 1) {
        durability.add("sync_binlog=" + rs.getInt(4));
      }
      if (rs.getInt(5) != 1) {
        durability.add("innodb_flush_log_at_trx_commit=" + rs.getInt(5));
      }
      if (!durability.isEmpty()) {
        String text =
            String.join(" and ", durability)
                + " "
                + where
                + ": a crash of the database server"
                + " can lose committed events from the binlog; set sync_binlog=1 and"
                + " innodb_flush_log_at_trx_commit=1";
        if (cdc.requireDurableBinlog()) {
          problems.add(text + " (or set cdc.require.durable.binlog=false to accept the risk)");
        } else {
          warnings.add(text);
        }
      }
      if (rs.getLong(6) == cdc.serverId()) {
        problems.add(
            "cdc.server.id="
                + cdc.serverId()
                + " is the server_id of the source itself: choose an"
                + " id no server or other binlog reader uses");
      }
    }
  }

  private static void checkGrants(Connection c, SourceConfig source, List<String> problems)
      throws SQLException {
    Set<String> global = new TreeSet<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW GRANTS FOR CURRENT_USER()")) {
      while (rs.next()) {
        // e.g. GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `relay`@`%` IDENTIFIED BY ...
        // Only the privilege list before " ON *.*" is read; the rest (a password hash) is not.
        String grant = rs.getString(1);
        int on = grant.indexOf(" ON *.*");
        if (grant.startsWith("GRANT ") && on > 0) {
          for (String p : grant.substring(6, on).split(",")) {
            global.add(p.trim().toUpperCase(Locale.ROOT));
          }
        }
      }
    }
    if (global.contains("ALL PRIVILEGES")) {
      return;
    }
    List<String> missing = new ArrayList<>();
    if (!global.contains("REPLICATION SLAVE") && !global.contains("REPLICATION REPLICA")) {
      missing.add("REPLICATION SLAVE");
    }
    if (!global.contains("BINLOG MONITOR")
        && !global.contains("REPLICATION CLIENT")
        && !global.contains("SUPER")) {
      missing.add(SqlDialect.of(source.flavor()).binlogMonitorGrant());
    }
    if (!missing.isEmpty()) {
      problems.add(
          "user '"
              + source.user()
              + "' lacks "
              + String.join(" and ", missing)
              + ": run GRANT "
              + String.join(", ", missing)
              + " ON *.* TO '"
              + source.user()
              + "'@'<host>' (see"
              + " config/mysql/relay-grants.sql)");
    }
  }

  /** Checks the outbox table and returns its columns (lower case; empty when unreadable). */
  /**
   * {@code cdc.retention} deletes published rows in sequence order by age: a table without those
   * columns (Debezium's outbox layout before its polling migration) cannot be swept.
   */
  static void checkRetentionColumns(
      SourceConfig source, CdcConfig cdc, Set<String> columns, List<String> problems) {
    if (cdc.retention().isZero() || columns.isEmpty()) {
      return;
    }
    List<String> missing = new ArrayList<>();
    for (String column : List.of(source.sequenceColumn().toLowerCase(Locale.ROOT), "created_at")) {
      if (!columns.contains(column)) {
        missing.add(column);
      }
    }
    if (!missing.isEmpty()) {
      problems.add(
          "cdc.retention deletes published rows by "
              + String.join(" and ", missing)
              + ", which "
              + source.database()
              + "."
              + source.table()
              + " lacks: add them (config/mysql/debezium-outbox-polling.sql adds both to Debezium's"
              + " outbox table, with source.column.sequence=relay_seq) or set cdc.retention=0");
    }
  }

  /** A problem when the table is polling's ({@link ModeOwnership#cdcStartProblem}). */
  private static void checkOwnership(
      Connection c,
      SourceConfig source,
      CdcConfig cdc,
      String relayName,
      Set<String> columns,
      List<String> problems,
      List<String> warnings)
      throws SQLException {
    ModeOwnership.TableState state =
        ModeOwnership.read(c, source, cdc.leaderTable(), columns)
            .withStoredPosition(
                ModeOwnership.storedPosition(c, source, cdc.offsetsTable(), relayName));
    ModeOwnership.cdcStartProblem(state).ifPresent(problems::add);
    ModeOwnership.relayNameProblem(state, relayName, cdc.leaderTable()).ifPresent(problems::add);
    RivalLeadership.find(c, source, cdc.leaderTable(), relayName)
        .map(r -> RivalLeadership.message(r, source, cdc.leaderTable(), relayName))
        .ifPresent(problems::add);
    if (state.unreadable() != null) {
      warnings.add(
          "cannot tell whether a polling relay serves "
              + state.table()
              + ": user '"
              + source.user()
              + "' may not read "
              + state.unreadable()
              + "; grant it SELECT as in config/mysql/relay-grants.sql");
    }
  }

  private static Set<String> checkOutboxTable(
      Connection c, SourceConfig source, List<String> problems) throws SQLException {
    String table = source.database() + "." + source.table();
    try (Statement st = c.createStatement()) {
      st.executeQuery("SELECT * FROM " + table + " LIMIT 0").close();
    } catch (SQLException e) {
      problems.add(tableProblem(c, e, table, source, "SELECT", "config/mysql/outbox-schema.sql"));
      return Set.of();
    }
    Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
    problems.addAll(
        OutboxColumns.missingProblems(
            columns, source, RelayMode.CDC, table, "config/mysql/outbox-schema.sql"));
    problems.addAll(
        OutboxColumns.typeProblems(
            columns,
            SqlDialect.of(source.flavor()),
            source.columns(),
            source.sequenceColumn(),
            RelayMode.CDC,
            table));
    return columns.keySet();
  }

  /** A position or schema history table: Debezium reads, inserts and deletes its rows. */
  private static void checkStorageTable(
      Connection c, SourceConfig source, String name, List<String> problems) throws SQLException {
    checkStorageTable(c, source, name, "DELETE FROM %s WHERE 1 = 0", "DELETE", problems);
  }

  /**
   * A table of the relay's: it must exist (or be creatable) and allow SELECT, INSERT and the
   * statement given, tried on zero rows (the server checks the privileges all the same).
   *
   * @param third a zero-row statement, {@code %s} for the table
   * @param thirdGrant the privilege it needs, for the message
   */
  private static void checkStorageTable(
      Connection c,
      SourceConfig source,
      String name,
      String third,
      String thirdGrant,
      List<String> problems)
      throws SQLException {
    String table = source.database() + "." + name;
    if (!visible(c, table) && canCreate(c, source)) {
      // Missing, as before a first start: Debezium creates it. Reading it would fail and the
      // driver log the server's error as a warning.
      return;
    }
    try (Statement st = c.createStatement()) {
      st.executeQuery("SELECT * FROM " + table + " LIMIT 0").close();
      // Zero-row statements still check the privileges.
      st.executeUpdate("INSERT INTO " + table + " SELECT * FROM " + table + " WHERE 1 = 0");
      st.executeUpdate(String.format(third, table));
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTableCode(e)) { // no such table: Debezium creates it if it may
        if (!canCreate(c, source)) {
          problems.add(
              "table "
                  + table
                  + " does not exist and user '"
                  + source.user()
                  + "' may not create"
                  + " it: create it with config/mysql/relay-storage.sql");
        }
        return;
      }
      problems.add(
          tableProblem(
              c,
              e,
              table,
              source,
              "SELECT, INSERT, " + thirdGrant,
              "config/mysql/relay-storage.sql"));
    }
  }

  private static boolean canCreate(Connection c, SourceConfig source) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW GRANTS FOR CURRENT_USER()")) {
      while (rs.next()) {
        String g = rs.getString(1).toUpperCase(Locale.ROOT);
        String db = "`" + source.database().toUpperCase(Locale.ROOT) + "`.*";
        boolean scope = g.contains(" ON *.*") || g.contains(" ON " + db);
        if (scope
            && (g.startsWith("GRANT ALL PRIVILEGES")
                || g.matches("GRANT .*\\bCREATE\\b.* ON .*"))) {
          return true;
        }
      }
    }
    return false;
  }

  private static String tableProblem(
      Connection c,
      SQLException e,
      String table,
      SourceConfig source,
      String privileges,
      String fix)
      throws SQLException {
    if (SqlErrors.isNoSuchTableCode(e)) {
      return "table " + table + " does not exist: create it with " + fix;
    }
    String grant =
        "GRANT "
            + privileges
            + " ON "
            + table
            + " TO '"
            + source.user()
            + "'@'<host>' (see config/mysql/relay-grants.sql)";
    if (SqlErrors.isTableOrDatabaseDenied(e)) {
      // The server answers "command denied" for a table that does not exist too, unless the user
      // has some privilege on it; the catalog shows the table only in that case, so a table it
      // does not show may be missing or merely hidden.
      if (!visible(c, table)) {
        return "table "
            + table
            + " does not exist or user '"
            + source.user()
            + "' cannot see it: create it with "
            + fix
            + ", or "
            + grant;
      }
      return "user '" + source.user() + "' may not use " + table + ": " + grant;
    }
    LOG.debug("table check failed", e);
    return "cannot read " + table + ": " + e.getMessage();
  }

  /**
   * Whether the catalog shows a table to this user: it exists and the user has some privilege on it
   * or its database.
   *
   * @param table {@code database.table}
   */
  static boolean visible(Connection c, String table) throws SQLException {
    int dot = table.indexOf('.');
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND"
                + " TABLE_NAME = ?")) {
      ps.setString(1, table.substring(0, dot));
      ps.setString(2, table.substring(dot + 1));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  private static boolean truthy(String v) {
    return v != null && (v.equals("1") || v.equalsIgnoreCase("ON"));
  }
}
