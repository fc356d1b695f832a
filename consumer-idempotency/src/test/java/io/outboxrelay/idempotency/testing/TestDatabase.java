package io.outboxrelay.idempotency.testing;

import io.outboxrelay.router.Dialect;
import io.outboxrelay.testsupport.database.ScratchDatabase;
import io.outboxrelay.testsupport.database.SimpleDataSource;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A throw-away consumer database: the idempotency tables created from the project's {@code
 * config/<dialect>/processed-events.sql}, plus a business table {@code business_effects} where
 * every applied effect is one row. On MariaDB it has a user of its own with all privileges on it;
 * on PostgreSQL the service's user owns it. Dropped on close.
 */
public final class TestDatabase implements AutoCloseable {

  private final ScratchDatabase db;
  private final Dialect dialect;
  private final String user;
  private final String password;

  private TestDatabase(ScratchDatabase db, Dialect dialect, String user, String password) {
    this.db = db;
    this.dialect = dialect;
    this.user = user;
    this.password = password;
  }

  /** A fresh database on the shared private MariaDB of {@code LocalStack}. */
  public static TestDatabase mariaDb(String prefix) {
    MariaDbServer server = LocalStack.shared().mariaDb();
    ScratchDatabase db = ScratchDatabase.onMariaDb(server, prefix);
    String user = "u_" + db.name().substring(Math.max(0, db.name().length() - 30));
    String password = "pw-" + UUID.randomUUID();
    db.dropAccountOnClose(user);
    server.createUser(user, password, "ALL PRIVILEGES ON `" + db.name() + "`.*");
    return new TestDatabase(db, Dialect.MYSQL, user, password).withSchema();
  }

  /** A fresh database on the machine's PostgreSQL service. */
  public static TestDatabase postgres(String prefix) {
    PostgresService service = PostgresService.local();
    ScratchDatabase db = ScratchDatabase.onPostgres(service, prefix);
    return new TestDatabase(db, Dialect.POSTGRESQL, service.user(), service.password())
        .withSchema();
  }

  private TestDatabase withSchema() {
    try {
      db.runSqlFile(schemaFile(), sql -> sql);
      db.execute(businessTableDdl());
    } catch (RuntimeException e) {
      db.close();
      throw new IllegalStateException("cannot create the schema of " + jdbcUrl() + ": " + e, e);
    }
    return this;
  }

  /** The dialect. */
  public Dialect dialect() {
    return dialect;
  }

  /** The JDBC URL. */
  public String jdbcUrl() {
    return db.jdbcUrl();
  }

  /** The user. */
  public String user() {
    return user;
  }

  /** The password, {@code null} for none. */
  public String password() {
    return password;
  }

  /** How many sessions of this database wait for a row lock right now (as administrator). */
  public int sessionsWaitingForLocks() {
    String sql =
        dialect == Dialect.MYSQL
            ? "SELECT COUNT(*) FROM information_schema.innodb_trx t"
                + " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
                + " WHERE t.trx_state = 'LOCK WAIT' AND p.db = '"
                + db.name()
                + "'"
            : "SELECT count(*) FROM pg_stat_activity"
                + " WHERE datname = current_database() AND wait_event_type = 'Lock'";
    return ((Number) db.queryValue(sql)).intValue();
  }

  /** An SQL expression for the database time {@code days} days ago. */
  public String daysAgo(int days) {
    return dialect == Dialect.MYSQL
        ? "CURRENT_TIMESTAMP(6) - INTERVAL " + days + " DAY"
        : "now() - interval '" + days + " days'";
  }

  private String businessTableDdl() {
    return dialect == Dialect.MYSQL
        ? "CREATE TABLE business_effects (effect_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
            + " event_id VARCHAR(255) NOT NULL, amount BIGINT NOT NULL) ENGINE = InnoDB"
        : "CREATE TABLE business_effects (effect_id BIGSERIAL PRIMARY KEY,"
            + " event_id VARCHAR(255) NOT NULL, amount BIGINT NOT NULL)";
  }

  /** Drops the database and its user. */
  @Override
  public void close() {
    db.close();
  }

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

  /** Runs the schema file with table names replaced (for the custom-names test). */
  public void createSchemaWithTableNames(String processedEvents, String aggregateVersions) {
    db.runSqlFile(
        schemaFile(),
        sql ->
            sql.replace("processed_aggregate_versions", aggregateVersions)
                .replace("processed_events", processedEvents));
  }

  /** Runs a project SQL file (a migration) as administrator, e.g. {@code config/mysql/...}. */
  public void runSqlFile(String relative) {
    db.runSqlFile(relative, sql -> sql);
  }

  /** The migration of this dialect that adds {@code processed_events.payload_hash}. */
  public String payloadHashMigration() {
    return "config/"
        + (dialect() == Dialect.MYSQL ? "mysql" : "postgresql")
        + "/migrations/processed-events-001-add-payload-hash.sql";
  }

  /** Turns {@code processed_events} into a table made before {@code payload_hash} existed. */
  public void dropPayloadHashColumn() {
    db.execute("ALTER TABLE processed_events DROP COLUMN payload_hash");
  }

  /**
   * The payload hash recorded with an event as lowercase hex, {@code null} if the row has none.
   *
   * @throws IllegalStateException if the event is not recorded
   */
  public String payloadHash(String group, String eventId) throws SQLException {
    try (Connection c = connect();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT payload_hash FROM processed_events"
                    + " WHERE consumer_group = ? AND event_id = ?")) {
      s.setString(1, group);
      s.setString(2, eventId);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          throw new IllegalStateException("event " + eventId + " of " + group + " not recorded");
        }
        byte[] hash = r.getBytes(1);
        return hash == null ? null : java.util.HexFormat.of().formatHex(hash);
      }
    }
  }

  @Override
  public String toString() {
    return db.toString();
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
