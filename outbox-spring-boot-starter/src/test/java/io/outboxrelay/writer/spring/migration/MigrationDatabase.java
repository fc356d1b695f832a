package io.outboxrelay.writer.spring.migration;

import io.outboxrelay.testsupport.database.ScratchDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * An empty throw-away database for the migration tests, with an application user of its own on
 * MariaDB, and a description of its tables from the catalog for comparing two databases. Dropped on
 * close.
 */
public final class MigrationDatabase implements AutoCloseable {

  private final ScratchDatabase db;
  private final boolean mariaDb;
  private final String user;
  private final String password;

  private MigrationDatabase(ScratchDatabase db, boolean mariaDb, String user, String password) {
    this.db = db;
    this.mariaDb = mariaDb;
    this.user = user;
    this.password = password;
  }

  /** An empty database on the shared private MariaDB, with a user holding all its privileges. */
  public static MigrationDatabase mariaDb() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    ScratchDatabase db = ScratchDatabase.onMariaDb(server, "migrations");
    String user = "m_" + db.name().substring(Math.max(0, db.name().length() - 30));
    String password = "pw-" + UUID.randomUUID();
    db.dropAccountOnClose(user);
    server.createUser(user, password, "ALL PRIVILEGES ON `" + db.name() + "`.*");
    return new MigrationDatabase(db, true, user, password);
  }

  /** An empty database on the machine's PostgreSQL service. */
  public static MigrationDatabase postgres() {
    PostgresService service = PostgresService.local();
    ScratchDatabase db = ScratchDatabase.onPostgres(service, "migrations");
    return new MigrationDatabase(db, false, service.user(), service.password());
  }

  /** The Spring Boot properties of a DataSource on this database. */
  public List<String> dataSourceProperties() {
    List<String> properties = new ArrayList<>();
    properties.add("spring.datasource.url=" + db.jdbcUrl());
    properties.add("spring.datasource.username=" + user);
    if (password != null) {
      properties.add("spring.datasource.password=" + password);
    }
    properties.add("spring.datasource.hikari.maximum-pool-size=3");
    return properties;
  }

  /** The project's {@code config/<dialect>/<file>}. */
  public String configFile(String file) {
    return "config/" + (mariaDb ? "mysql" : "postgresql") + "/" + file;
  }

  /** Runs {@code config/<dialect>/<file>} as administrator. */
  public void runConfigFile(String file) {
    db.runSqlFile(configFile(file), sql -> sql);
  }

  /**
   * Runs {@code config/<dialect>/<file>} without the column definitions named, as a table of an
   * older version looks.
   */
  public void runConfigFileWithout(String file, String... columns) {
    Pattern column = Pattern.compile("^\\s*(" + String.join("|", columns) + ")\\s.*$");
    List<String> statements = new ArrayList<>();
    for (String statement : ProjectFiles.sqlStatements(configFile(file))) {
      StringBuilder kept = new StringBuilder();
      for (String line : statement.split("\n")) {
        if (!column.matcher(line).matches()) {
          kept.append(line).append('\n');
        }
      }
      statements.add(kept.toString());
    }
    db.execute(statements.toArray(String[]::new));
  }

  /** Runs statements as administrator. */
  public void execute(String... sql) {
    db.execute(sql);
  }

  /** A single value, as administrator. */
  public Object query(String sql) {
    return db.queryValue(sql);
  }

  /** Rows of a table matching a condition. */
  public long count(String tableAndWhere) {
    return ((Number) db.queryValue("SELECT COUNT(*) FROM " + tableAndWhere)).longValue();
  }

  /** Whether a table of that name exists. */
  public boolean hasTable(String table) {
    return count(
            "information_schema.tables WHERE table_schema = "
                + (mariaDb ? "DATABASE()" : "current_schema()")
                + " AND table_name = '"
                + table
                + "'")
        > 0;
  }

  /** The versions a Flyway history table records, in the order they were applied. */
  public List<String> versions(String historyTable) {
    return column("SELECT version FROM " + historyTable + " ORDER BY installed_rank");
  }

  /** The SQL condition "event_id is {@code id}" for this dialect. */
  public String eventIdIs(String id) {
    return (mariaDb ? "event_id" : "event_id::text") + " = '" + id + "'";
  }

  /**
   * The catalog's description of tables: per table, its columns (type, nullability, default,
   * character set and collation, identity), indexes, constraints and table options, as text rows.
   *
   * @param tables the table names
   * @param positions whether the column order counts
   * @return per table, its sorted description
   */
  public Map<String, List<String>> describe(List<String> tables, boolean positions) {
    Map<String, List<String>> described = new TreeMap<>();
    for (String table : tables) {
      List<String> rows = new ArrayList<>();
      for (String sql : mariaDb ? mariaDbCatalog(positions) : postgresCatalog(positions)) {
        rows.addAll(rows(sql, table));
      }
      rows.sort(null);
      described.put(table, rows);
    }
    return described;
  }

  private static List<String> mariaDbCatalog(boolean positions) {
    return List.of(
        "SELECT 'column', COLUMN_NAME, "
            + (positions ? "ORDINAL_POSITION" : "0")
            + ", COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, CHARACTER_SET_NAME, COLLATION_NAME,"
            + " EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
            + " AND TABLE_NAME = ?",
        "SELECT 'index', INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, INDEX_TYPE"
            + " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()"
            + " AND TABLE_NAME = ?",
        "SELECT 'check', CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS"
            + " WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        "SELECT 'table', ENGINE, TABLE_COLLATION FROM information_schema.TABLES"
            + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?");
  }

  private static List<String> postgresCatalog(boolean positions) {
    return List.of(
        "SELECT 'column', column_name, "
            + (positions ? "ordinal_position" : "0")
            + ", data_type, udt_name, character_maximum_length, numeric_precision,"
            + " datetime_precision, is_nullable, column_default, is_identity, identity_generation"
            + " FROM information_schema.columns WHERE table_schema = current_schema()"
            + " AND table_name = ?",
        "SELECT 'index', indexname, indexdef FROM pg_indexes"
            + " WHERE schemaname = current_schema() AND tablename = ?",
        "SELECT 'constraint', conname, contype, pg_get_constraintdef(c.oid) FROM pg_constraint c"
            + " JOIN pg_class t ON t.oid = c.conrelid"
            + " WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = ?");
  }

  private List<String> rows(String sql, String table) {
    try (Connection c = db.adminConnection();
        PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, table);
      List<String> rows = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        ResultSetMetaData meta = rs.getMetaData();
        while (rs.next()) {
          List<String> values = new ArrayList<>();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            values.add(String.valueOf(rs.getObject(i)));
          }
          rows.add(String.join(" | ", values));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    }
  }

  private List<String> column(String sql) {
    try (Connection c = db.adminConnection();
        PreparedStatement st = c.prepareStatement(sql);
        ResultSet rs = st.executeQuery()) {
      List<String> values = new ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
