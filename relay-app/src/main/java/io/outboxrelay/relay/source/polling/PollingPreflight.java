package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.config.PollingConfig;
import io.outboxrelay.relay.config.RelayConfigKeys;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Startup checks for polling mode, run as the relay's user: a database version with {@code SKIP
 * LOCKED}, the outbox table with every column polling uses and the types the router can read
 * ({@link OutboxColumns}), a sequence column that names one row per value, and the rights to read
 * and update it (and to delete from it when retention is on). Each problem is one line saying what
 * to change.
 */
final class PollingPreflight {

  private static final Logger LOG = LoggerFactory.getLogger(PollingPreflight.class);

  /** Polling's own columns, whatever the mapping of the event's columns. */
  static final List<String> COLUMNS =
      List.of(
          "created_at",
          "status",
          "attempts",
          "next_attempt_at",
          "claim_token",
          "processing_until",
          "published_at",
          "last_error");

  /** The index the claim of pending rows names (see {@link SqlDialect#statusIdIndexHint}). */
  static final String CLAIM_INDEX = "ix_outbox_events_status_id";

  /** The index the head checks name (see {@link SqlDialect#aggregateIndexHint}). */
  static final String AGGREGATE_INDEX = "ix_outbox_events_aggregate";

  private PollingPreflight() {}

  static List<String> check(
      Connection c, SqlDialect dialect, SourceConfig source, PollingConfig polling)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    DatabaseMetaData meta = c.getMetaData();
    String version = meta.getDatabaseProductVersion();
    // The server's own product, which may differ from source.flavor (MySQL and MariaDB share a
    // driver): the version that lacks SKIP LOCKED is the server's.
    SqlDialect server = SqlDialect.ofProduct(meta.getDatabaseProductName(), version);
    if (!server.supportsSkipLocked(
        meta.getDatabaseMajorVersion(), meta.getDatabaseMinorVersion())) {
      problems.add(
          source.describe()
              + " runs version "
              + version
              + ", which lacks SELECT ... FOR UPDATE"
              + " SKIP LOCKED: polling needs MariaDB 10.6, MySQL 8.0 or PostgreSQL 12 or later");
    }
    String table = source.table();
    String ddl = dialect.outboxSchemaFile();
    try (Statement st = c.createStatement()) {
      st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException e) {
      c.rollback();
      problems.add(
          "cannot read table "
              + table
              + " in "
              + source.describe()
              + " ("
              + e.getMessage()
              + "): create it with "
              + ddl
              + " and grant SELECT, UPDATE on it to '"
              + source.user()
              + "'");
      return problems;
    }
    Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
    List<String> mappedMissing =
        OutboxColumns.missingProblems(columns, source, RelayMode.POLLING, table, ddl);
    problems.addAll(mappedMissing);
    List<String> missing = new ArrayList<>(COLUMNS);
    missing.removeAll(columns.keySet());
    if (missing.equals(List.of("last_error"))) {
      problems.add(
          "table "
              + table
              + " has no last_error column, where polling keeps the reason an event"
              + " failed: add it with the migration in "
              + dialect.migration("001-add-last-error.sql"));
    } else if (!missing.isEmpty()) {
      problems.add(
          "table "
              + table
              + " lacks polling's columns "
              + missing
              + ": create it as in "
              + ddl
              + " (Debezium's outbox table: docs/migrating-from-debezium.md)");
    }
    problems.addAll(
        OutboxColumns.typeProblems(
            columns, dialect, source.columns(), source.sequenceColumn(), RelayMode.POLLING, table));
    if (OutboxColumns.has(columns, source.sequenceColumn())) {
      String notUnique = OutboxColumns.sequenceUniquenessProblem(c, source, table);
      if (notUnique != null) {
        problems.add(notUnique);
      }
    }
    if (dialect.hintsIndexes()) {
      checkIndexes(meta, dialect, dialect.catalog(source), table, polling, problems);
    }
    if (missing.isEmpty() && mappedMissing.isEmpty()) {
      checkWrite(
          c,
          "UPDATE " + table + " SET attempts = attempts WHERE 1 = 0",
          "UPDATE",
          table,
          source,
          problems);
      if (!polling.retention().isZero()) {
        checkWrite(
            c,
            "DELETE FROM " + table + " WHERE 1 = 0",
            "DELETE (polling.retention is on)",
            table,
            source,
            problems);
      }
    }
    c.rollback();
    return problems;
  }

  /** MariaDB/MySQL: the indexes the claim names in hints; without them every claim would fail. */
  private static void checkIndexes(
      DatabaseMetaData meta,
      SqlDialect dialect,
      String catalog,
      String table,
      PollingConfig polling,
      List<String> problems)
      throws SQLException {
    Set<String> indexes = new TreeSet<>();
    try (ResultSet rs = meta.getIndexInfo(catalog, null, table, false, true)) {
      while (rs.next()) {
        String index = rs.getString("INDEX_NAME");
        if (index != null) {
          indexes.add(index.toLowerCase(Locale.ROOT));
        }
      }
    }
    if (!indexes.contains(CLAIM_INDEX)) {
      problems.add(
          "table "
              + table
              + " has no index "
              + CLAIM_INDEX
              + " (status, id), which polling claims walk: add it as in "
              + dialect.migration("001-add-last-error.sql"));
    }
    if (polling.ordering() == Ordering.AGGREGATE && !indexes.contains(AGGREGATE_INDEX)) {
      problems.add(
          "table "
              + table
              + " has no index "
              + AGGREGATE_INDEX
              + " (aggregate_type, aggregate_id, status, id), which the ordering checks read:"
              + " add it as in "
              + dialect.migration("001-add-last-error.sql"));
    }
  }

  /**
   * Why a polling relay must not serve the table ({@link ModeOwnership#pollingStartProblem}): it
   * was handed to CDC, or a CDC relay streams it or served it last. What the relay's user may not
   * read to tell is logged at WARN.
   */
  static Optional<String> ownershipProblem(
      Connection c, SqlDialect dialect, SourceConfig source, String context) throws SQLException {
    // Where CDC relays keep their lease; polling mode reads no cdc.* settings of its own.
    ModeOwnership.TableState state =
        ModeOwnership.read(
            c,
            source,
            RelayConfigKeys.CDC_LEADER_TABLE.defaultValue(),
            OutboxColumns.read(c, source).keySet());
    if (state.unreadable() != null) {
      LOG.warn(
          "[{}] cannot tell whether a CDC relay serves {}: user '{}' may not read {}; grant it"
              + " SELECT as in {}/relay-grants.sql",
          context,
          state.table(),
          source.user(),
          state.unreadable(),
          dialect.configDirectory());
    }
    return ModeOwnership.pollingStartProblem(state);
  }

  /**
   * What works but could be better, one line each (logged at WARN, never refused): on
   * MariaDB/MySQL, bookkeeping columns that make InnoDB rewrite each row a claim or a finish
   * updates, instead of updating it in place (a table created before migration 002).
   */
  static List<String> advice(Connection c, SqlDialect dialect, SourceConfig source)
      throws SQLException {
    List<String> advice = new ArrayList<>();
    if (!dialect.wantsFixedWidthBookkeeping()) {
      return advice;
    }
    List<String> variable = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT LOWER(COLUMN_NAME), LOWER(DATA_TYPE), LOWER(CHARACTER_SET_NAME), IS_NULLABLE"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND LOWER(COLUMN_NAME) IN ('status', 'claim_token', 'processing_until')"
                + " ORDER BY ORDINAL_POSITION")) {
      ps.setString(1, source.database());
      ps.setString(2, source.table());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String column = rs.getString(1);
          boolean notNull = "NO".equals(rs.getString(4));
          // A timestamp is fixed-width already; text is only when CHAR in a one-byte charset.
          boolean fixed =
              column.equals("processing_until")
                  ? notNull
                  : notNull && "char".equals(rs.getString(2)) && "ascii".equals(rs.getString(3));
          if (!fixed) {
            variable.add(column);
          }
        }
      }
    }
    c.rollback();
    if (!variable.isEmpty()) {
      advice.add(
          "table "
              + source.table()
              + " has variable-width or NULL-able bookkeeping columns "
              + variable
              + ", so InnoDB rewrites every row a claim or a finish updates: polling works, but"
              + " measured about a fifth slower; "
              + dialect.migration("002-fixed-width-bookkeeping.sql")
              + " makes them fixed-width");
    }
    return advice;
  }

  private static void checkWrite(
      Connection c,
      String sql,
      String privilege,
      String table,
      SourceConfig source,
      List<String> problems)
      throws SQLException {
    try (Statement st = c.createStatement()) {
      st.executeUpdate(sql);
    } catch (SQLException e) {
      c.rollback();
      problems.add(
          "user '"
              + source.user()
              + "' may not "
              + privilege
              + " "
              + table
              + " ("
              + e.getMessage()
              + "): grant it (see config/*/relay-grants.sql)");
    }
  }
}
