package io.outboxrelay.idempotency.testing;

import io.outboxrelay.idempotency.Dialect;
import io.outboxrelay.localstack.ProjectFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * A throw-away consumer database: the idempotency tables created from the project's {@code
 * config/<dialect>/processed-events.sql}, plus a business table {@code business_effects} where
 * every applied effect is one row. Dropped on close.
 */
public abstract class TestDatabase implements AutoCloseable {

  /** A fresh database on the shared private MariaDB of {@code LocalStack}. */
  public static TestDatabase mariaDb(String prefix) {
    return new MariaDbTestDatabase(prefix);
  }

  /** A fresh database on the machine's PostgreSQL service. */
  public static TestDatabase postgres(String prefix) {
    return new PostgresTestDatabase(prefix);
  }

  /** The dialect. */
  public abstract Dialect dialect();

  /** The JDBC URL. */
  public abstract String jdbcUrl();

  /** The user. */
  public abstract String user();

  /** The password, {@code null} for none. */
  public abstract String password();

  /** How many sessions of this database wait for a row lock right now (needs admin rights). */
  public abstract int sessionsWaitingForLocks() throws SQLException;

  /** An SQL expression for the database time {@code days} days ago. */
  public abstract String daysAgo(int days);

  /** The DDL of the business table. */
  protected abstract String businessTableDdl();

  @Override
  public abstract void close();

  /** Connections as the database's user. */
  public DataSource dataSource() {
    return new SimpleDataSource(jdbcUrl(), user(), password());
  }

  /** A connection as the database's user, auto-commit on. */
  public Connection connect() throws SQLException {
    return dataSource().getConnection();
  }

  /** The DDL file of this dialect, relative to the project root. */
  public String schemaFile() {
    return "config/"
        + (dialect() == Dialect.MYSQL ? "mysql" : "postgresql")
        + "/processed-events.sql";
  }

  /** Runs the schema file, each statement rewritten by {@code rewrite}, and the business DDL. */
  protected void createSchema(UnaryOperator<String> rewrite) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String sql : ProjectFiles.sqlStatements(schemaFile())) {
        s.execute(rewrite.apply(sql));
      }
      s.execute(businessTableDdl());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the schema of " + jdbcUrl() + ": " + e, e);
    }
  }

  /** Runs the schema file with table names replaced (for the custom-names test). */
  public void createSchemaWithTableNames(String processedEvents, String aggregateVersions) {
    createSchemaStatementsOnly(
        sql ->
            sql.replace("processed_aggregate_versions", aggregateVersions)
                .replace("processed_events", processedEvents));
  }

  private void createSchemaStatementsOnly(UnaryOperator<String> rewrite) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String sql : ProjectFiles.sqlStatements(schemaFile())) {
        s.execute(rewrite.apply(sql));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the schema of " + jdbcUrl() + ": " + e, e);
    }
  }

  /** The business effect: one row in {@code business_effects}. */
  public static void applyEffect(Connection c, String eventId, long amount) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("INSERT INTO business_effects (event_id, amount) VALUES (?, ?)")) {
      s.setString(1, eventId);
      s.setLong(2, amount);
      s.executeUpdate();
    }
  }

  /** How many effects of an event were applied. */
  public long effects(String eventId) throws SQLException {
    return queryLong("SELECT COUNT(*) FROM business_effects WHERE event_id = ?", eventId);
  }

  /** How many effects were applied in all. */
  public long allEffects() throws SQLException {
    return queryLong("SELECT COUNT(*) FROM business_effects");
  }

  /** The sum of all applied amounts. */
  public long totalAmount() throws SQLException {
    return queryLong("SELECT COALESCE(SUM(amount), 0) FROM business_effects");
  }

  /** How many distinct events have effects. */
  public long distinctEffects() throws SQLException {
    return queryLong("SELECT COUNT(DISTINCT event_id) FROM business_effects");
  }

  /** Rows of {@code processed_events} of a consumer group. */
  public long processedRows(String group) throws SQLException {
    return queryLong("SELECT COUNT(*) FROM processed_events WHERE consumer_group = ?", group);
  }

  /** Whether {@code processed_events} holds an event of a group. */
  public boolean isRecorded(String group, String eventId) throws SQLException {
    return queryLong(
            "SELECT COUNT(*) FROM processed_events WHERE consumer_group = ? AND event_id = ?",
            group,
            eventId)
        == 1;
  }

  /** The last applied version of an aggregate, {@code null} if it has no row. */
  public Long lastVersion(String group, String type, String id) throws SQLException {
    try (Connection c = connect();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT last_version FROM processed_aggregate_versions"
                    + " WHERE consumer_group = ? AND aggregate_type = ? AND aggregate_id = ?")) {
      s.setString(1, group);
      s.setString(2, type);
      s.setString(3, id);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? r.getLong(1) : null;
      }
    }
  }

  /** Runs a statement with auto-commit and returns its update count. */
  public int update(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      return s.executeUpdate(sql);
    }
  }

  /** Runs a single-value query. */
  public long queryLong(String sql, Object... args) throws SQLException {
    try (Connection c = connect();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        s.setObject(i + 1, args[i]);
      }
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }
}
