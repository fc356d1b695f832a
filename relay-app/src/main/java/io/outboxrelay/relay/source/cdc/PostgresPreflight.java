package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Startup checks for CDC mode on PostgreSQL, run as the relay's own user before the engine starts;
 * each missing thing is one line saying what to change: {@code wal_level=logical}, a free
 * replication slot (unless the relay's exists) and a free WAL sender, the {@code REPLICATION}
 * attribute (or superuser), the relay's slot when it exists (pgoutput, this database, not
 * invalidated; in use by another reader is a warning), the outbox table with its columns, the
 * publication covering the table (or the right to create it), and the position and leadership
 * tables (or the right to create them). When every check passes and the publication is missing, the
 * relay creates it ({@link PostgresReplication}). Stateless.
 */
final class PostgresPreflight {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresPreflight.class);
  private static final String GRANTS = "config/postgresql/relay-grants.sql";
  private static final String STORAGE = "config/postgresql/relay-storage.sql";

  private PostgresPreflight() {}

  /**
   * Runs the checks, then creates the publication when it is missing and the user may.
   *
   * @param c a connection as the relay's user, auto-commit on; the caller's
   * @param config the relay configuration
   * @return problems (the relay must not start) and warnings
   * @throws SQLException when the database fails during the checks
   */
  static BinlogPreflight.Result check(Connection c, RelayConfig config) throws SQLException {
    SourceConfig source = config.source();
    CdcConfig cdc = config.cdc();
    List<String> problems = new ArrayList<>();
    String where = "on " + source.describe();
    String walLevel = single(c, "SHOW wal_level");
    if (!"logical".equalsIgnoreCase(walLevel)) {
      problems.add(
          "wal_level is "
              + walLevel
              + " "
              + where
              + ": set wal_level=logical (ALTER SYSTEM SET wal_level = logical, then restart"
              + " PostgreSQL): the relay reads the outbox table's inserts by logical decoding");
    }
    String user = single(c, "SELECT current_user");
    if (!"t"
        .equals(
            single(
                c,
                "SELECT (rolreplication OR rolsuper)::text::char FROM pg_roles"
                    + " WHERE rolname = current_user"))) {
      problems.add(
          "user '"
              + user
              + "' may not stream changes: ALTER ROLE "
              + user
              + " REPLICATION (as in "
              + GRANTS
              + ")");
    }
    List<String> warnings = new ArrayList<>();
    checkSlot(c, config, problems, warnings);
    checkWalSenders(c, where, problems);
    Optional<String> schema = checkOutboxTable(c, source, problems);
    boolean createPublication =
        schema.isPresent()
            && checkPublication(c, config, schema.get() + "." + source.table(), problems);
    checkStorageTable(c, source, cdc.offsetsTable(), "SELECT, INSERT, DELETE", problems);
    checkStorageTable(c, source, cdc.leaderTable(), "SELECT, INSERT, UPDATE", problems);
    if (schema.isPresent()) {
      BinlogPreflight.checkRetentionColumns(
          source, cdc, OutboxColumns.read(c, source).keySet(), problems);
      checkOwnership(c, config, problems, warnings);
    }
    if (problems.isEmpty() && createPublication) {
      String table = schema.get() + "." + source.table();
      PostgresReplication.createPublication(c, config.name(), table);
      LOG.info(
          "[{}] created publication {} for {} (inserts only)",
          config.logContext(),
          PostgresReplication.publicationName(config.name()),
          table);
    }
    return new BinlogPreflight.Result(problems, warnings);
  }

  private static void checkSlot(
      Connection c, RelayConfig config, List<String> problems, List<String> warnings)
      throws SQLException {
    String slot = PostgresReplication.slotName(config.name());
    String sql =
        "SELECT slot_type, plugin, database, active, active_pid,"
            + (serverVersion(c) >= 13 ? " wal_status" : " NULL")
            + " FROM pg_replication_slots WHERE slot_name = ?";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          String database = config.source().database();
          if (!"logical".equals(rs.getString(1))
              || !"pgoutput".equals(rs.getString(2))
              || !database.equals(rs.getString(3))) {
            problems.add(
                "replication slot "
                    + slot
                    + " (relay.name '"
                    + config.name()
                    + "') is a "
                    + rs.getString(1)
                    + " slot"
                    + (rs.getString(2) == null ? "" : " of plugin " + rs.getString(2))
                    + (rs.getString(3) == null ? "" : " in database " + rs.getString(3))
                    + ", not a logical pgoutput slot in "
                    + database
                    + ": drop it (SELECT pg_drop_replication_slot('"
                    + slot
                    + "')) or give this relay another relay.name");
          } else if (rs.getBoolean(4)) {
            // A relay killed a moment ago may still hold it until its walsender notices; Debezium
            // retries the connection (6 times, 10 s apart) before it gives up.
            warnings.add(
                "replication slot "
                    + slot
                    + " is in use by another client (pid "
                    + rs.getLong(5)
                    + "): one slot has one reader, so the relay streams once that one lets go;"
                    + " if it is not a relay of this relay.name that just stopped, stop it or give"
                    + " this relay another relay.name");
          } else if ("lost".equals(rs.getString(6))) {
            problems.add(
                "replication slot "
                    + slot
                    + " was invalidated by PostgreSQL (wal_status=lost, e.g."
                    + " max_slot_wal_keep_size): "
                    + PostgresReplication.recovery(config.name(), config.cdc().offsetsTable()));
          }
          return;
        }
      }
    }
    String stored;
    try {
      stored = PostgresReplication.storedOffset(c, config);
    } catch (SQLException e) {
      stored = null; // unreadable: the check of the offsets table says what to grant
    }
    if (PostgresReplication.isPosition(stored) && !handedToPolling(c, config.source())) {
      problems.add(
          "replication slot "
              + slot
              + " does not exist, though relay.name '"
              + config.name()
              + "' has a position stored in "
              + config.cdc().offsetsTable()
              + " (the slot was dropped): a new slot would start from now and the events"
              + " committed in between would never be published; "
              + PostgresReplication.recovery(config.name(), config.cdc().offsetsTable()));
      return;
    }
    long used = Long.parseLong(single(c, "SELECT count(*) FROM pg_replication_slots"));
    long max = Long.parseLong(single(c, "SHOW max_replication_slots"));
    if (used >= max) {
      problems.add(
          "no free replication slot for "
              + slot
              + ": "
              + used
              + " of max_replication_slots="
              + max
              + " are taken; raise max_replication_slots (restart needed) or drop an unused slot"
              + " (pg_replication_slots)");
    }
  }

  /**
   * Whether the table's latest hand-off gave it to polling, which drops the slot: the ownership
   * check then says what to do.
   */
  private static boolean handedToPolling(Connection c, SourceConfig source) {
    try {
      return HandoffRecords.latest(c, source).map(h -> h.to() == RelayMode.POLLING).orElse(false);
    } catch (SQLException e) {
      return false; // unreadable: the ownership check warns
    }
  }

  /**
   * A problem when the table is polling's ({@link ModeOwnership#cdcStartProblem}) or served by a
   * relay of another name, as on MariaDB.
   */
  private static void checkOwnership(
      Connection c, RelayConfig config, List<String> problems, List<String> warnings)
      throws SQLException {
    SourceConfig source = config.source();
    CdcConfig cdc = config.cdc();
    c.setAutoCommit(false);
    try {
      ModeOwnership.TableState state =
          ModeOwnership.read(c, source, cdc.leaderTable(), OutboxColumns.read(c, source).keySet())
              .withStoredPosition(
                  ModeOwnership.storedPosition(c, source, cdc.offsetsTable(), config.name()));
      ModeOwnership.cdcStartProblem(state).ifPresent(problems::add);
      ModeOwnership.relayNameProblem(state, config.name(), cdc.leaderTable())
          .ifPresent(problems::add);
      if (state.unreadable() != null) {
        warnings.add(
            "cannot tell whether a polling relay serves "
                + state.table()
                + ": user '"
                + source.user()
                + "' may not read "
                + state.unreadable()
                + "; grant it SELECT as in "
                + GRANTS);
      }
    } finally {
      c.rollback();
      c.setAutoCommit(true);
    }
  }

  private static void checkWalSenders(Connection c, String where, List<String> problems)
      throws SQLException {
    long busy =
        Long.parseLong(
            single(c, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender'"));
    long max = Long.parseLong(single(c, "SHOW max_wal_senders"));
    if (busy >= max) {
      problems.add(
          "no free WAL sender "
              + where
              + ": "
              + busy
              + " of max_wal_senders="
              + max
              + " are busy; raise max_wal_senders (restart needed)");
    }
  }

  /** The table's schema, when it is readable; its column problems otherwise go to problems. */
  private static Optional<String> checkOutboxTable(
      Connection c, SourceConfig source, List<String> problems) throws SQLException {
    Optional<String> schema = PostgresReplication.schemaOf(c, source);
    if (schema.isEmpty()) {
      problems.add(
          "table "
              + source.table()
              + " does not exist in database "
              + source.database()
              + " (search_path of user '"
              + source.user()
              + "'): create it with config/postgresql/outbox-schema.sql");
      return Optional.empty();
    }
    String table = schema.get() + "." + source.table();
    if (!privileged(c, "has_table_privilege(?, 'SELECT')", table)) {
      problems.add(
          "user '"
              + source.user()
              + "' may not read "
              + table
              + ": GRANT SELECT ON "
              + table
              + " TO "
              + source.user()
              + " (as in "
              + GRANTS
              + ")");
      return Optional.empty();
    }
    Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
    problems.addAll(
        OutboxColumns.missingProblems(
            columns, source, RelayMode.CDC, table, "config/postgresql/outbox-schema.sql"));
    problems.addAll(
        OutboxColumns.typeProblems(
            columns,
            SqlDialect.POSTGRESQL,
            source.columns(),
            source.sequenceColumn(),
            RelayMode.CDC,
            table));
    return schema;
  }

  /**
   * Checks the publication.
   *
   * @return true when it is missing and the relay may create it
   */
  private static boolean checkPublication(
      Connection c, RelayConfig config, String table, List<String> problems) throws SQLException {
    String publication = PostgresReplication.publicationName(config.name());
    String user = config.source().user();
    try (PreparedStatement ps =
        c.prepareStatement("SELECT pubinsert FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          boolean inserts = rs.getBoolean(1);
          if (!covers(c, publication, table)) {
            problems.add(
                "publication "
                    + publication
                    + " does not cover "
                    + table
                    + ": ALTER PUBLICATION "
                    + publication
                    + " ADD TABLE "
                    + table);
          } else if (!inserts) {
            problems.add(
                "publication "
                    + publication
                    + " does not publish inserts: ALTER PUBLICATION "
                    + publication
                    + " SET (publish = 'insert')");
          }
          return false;
        }
      }
    }
    boolean mayCreate =
        "t"
                .equals(
                    single(
                        c,
                        "SELECT rolsuper::text::char FROM pg_roles WHERE rolname = current_user"))
            || (privileged(c, "has_database_privilege(?, 'CREATE')", config.source().database())
                && privileged(
                    c,
                    "pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid ="
                        + " to_regclass(?)), 'USAGE')",
                    table));
    if (!mayCreate) {
      problems.add(
          "publication "
              + publication
              + " does not exist and user '"
              + user
              + "' may not create it (it needs CREATE on database "
              + config.source().database()
              + " and to own "
              + table
              + "): run "
              + PostgresReplication.createPublicationSql(config.name(), table)
              + " as the table's owner");
    }
    return mayCreate;
  }

  private static boolean covers(Connection c, String publication, String table)
      throws SQLException {
    int dot = table.indexOf('.');
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM pg_publication_tables WHERE pubname = ? AND schemaname = ? AND"
                + " tablename = ?")) {
      ps.setString(1, publication);
      ps.setString(2, table.substring(0, dot));
      ps.setString(3, table.substring(dot + 1));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** A table of the relay's: it exists with the privileges given, or may be created. */
  private static void checkStorageTable(
      Connection c, SourceConfig source, String name, String privileges, List<String> problems)
      throws SQLException {
    boolean exists;
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        exists = rs.next() && rs.getBoolean(1);
      }
    }
    if (exists) {
      List<String> missing = new ArrayList<>();
      for (String privilege : privileges.split(", ")) {
        // one at a time: with several, has_table_privilege says whether any is held
        if (!privileged(c, "has_table_privilege(?, '" + privilege + "')", name)) {
          missing.add(privilege);
        }
      }
      if (!missing.isEmpty()) {
        problems.add(
            "user '"
                + source.user()
                + "' may not use table "
                + name
                + ": GRANT "
                + String.join(", ", missing)
                + " ON "
                + name
                + " TO "
                + source.user()
                + " (as in "
                + GRANTS
                + ")");
      }
    } else if (!"t"
        .equals(single(c, "SELECT has_schema_privilege(current_schema(), 'CREATE')::text::char"))) {
      problems.add(
          "table "
              + name
              + " does not exist and user '"
              + source.user()
              + "' may not create it in schema "
              + single(c, "SELECT current_schema()")
              + ": create it with "
              + STORAGE
              + " and grant "
              + privileges
              + " on it");
    }
  }

  private static boolean privileged(Connection c, String function, String argument)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + function)) {
      ps.setString(1, argument);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** The server's major version, e.g. 15 or 17. */
  static int serverVersion(Connection c) throws SQLException {
    return Integer.parseInt(single(c, "SHOW server_version_num")) / 10000;
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
