package io.outboxrelay.writer;

import io.outboxrelay.router.Dialect;
import io.outboxrelay.testsupport.database.ScratchDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A throw-away database with the outbox table of the project's {@code
 * config/<dialect>/outbox-schema.sql} (plus a {@code headers} column where the file has none yet),
 * reached as a user of its own (MariaDB) or the service's user (PostgreSQL), with plain driver
 * settings. Dropped on close.
 */
final class WriterDatabase implements AutoCloseable {

  private final ScratchDatabase db;
  private final Dialect dialect;
  private final String user;
  private final String password;

  private WriterDatabase(ScratchDatabase db, Dialect dialect, String user, String password) {
    this.db = db;
    this.dialect = dialect;
    this.user = user;
    this.password = password;
  }

  /** A fresh database on the shared private MariaDB of the local stack. */
  static WriterDatabase mariaDb() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    ScratchDatabase db = ScratchDatabase.onMariaDb(server, "writer");
    String user = "w_" + db.name().substring(Math.max(0, db.name().length() - 30));
    String password = "pw-" + UUID.randomUUID();
    db.dropAccountOnClose(user);
    server.createUser(user, password, "ALL PRIVILEGES ON `" + db.name() + "`.*");
    return new WriterDatabase(db, Dialect.MYSQL, user, password).withOutboxTable();
  }

  /** A fresh database on the machine's PostgreSQL service. */
  static WriterDatabase postgres() {
    PostgresService service = PostgresService.local();
    ScratchDatabase db = ScratchDatabase.onPostgres(service, "writer");
    return new WriterDatabase(db, Dialect.POSTGRESQL, service.user(), service.password())
        .withOutboxTable();
  }

  private WriterDatabase withOutboxTable() {
    try {
      db.runSqlFile("config/" + configDir() + "/outbox-schema.sql", sql -> sql);
      db.execute(
          "ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS headers "
              + (dialect == Dialect.MYSQL ? "JSON NULL" : "jsonb NULL"));
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
    return this;
  }

  Dialect dialect() {
    return dialect;
  }

  String configDir() {
    return dialect.schemaFolder();
  }

  String jdbcUrl() {
    return db.jdbcUrl();
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  /** A new connection, auto-commit off. */
  Connection connect() throws SQLException {
    Connection c = DriverManager.getConnection(jdbcUrl(), user, password);
    c.setAutoCommit(false);
    return c;
  }

  /** Runs statements as administrator. */
  void execute(String... sql) {
    db.execute(sql);
  }

  /** Rows of a table. */
  long count(String table) {
    return ((Number) db.queryValue("SELECT COUNT(*) FROM " + table)).longValue();
  }

  /**
   * The row of an event, column name (lower case) to value as the driver returns it ({@code
   * getString} for everything but integers), or {@code null} if there is none.
   */
  Map<String, Object> row(String table, String idColumn, String eventId) throws SQLException {
    String where = dialect == Dialect.MYSQL ? idColumn + " = ?" : idColumn + "::text = ?";
    try (Connection c = db.adminConnection();
        PreparedStatement ps = c.prepareStatement("SELECT * FROM " + table + " WHERE " + where)) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Map<String, Object> row = new LinkedHashMap<>();
        ResultSetMetaData meta = rs.getMetaData();
        for (int k = 1; k <= meta.getColumnCount(); k++) {
          String name = meta.getColumnName(k).toLowerCase(java.util.Locale.ROOT);
          Object value = rs.getObject(k);
          row.put(name, value instanceof Number || value == null ? value : rs.getString(k));
        }
        if (rs.next()) {
          throw new AssertionError("two rows with event id " + eventId + " in " + table);
        }
        return row;
      }
    }
  }

  /** The row of an event in {@code outbox_events}. */
  Map<String, Object> row(String eventId) throws SQLException {
    return row("outbox_events", "event_id", eventId);
  }

  /** The event ids of {@code outbox_events} in the order of its {@code id} column. */
  java.util.List<String> eventIdsInInsertOrder() throws SQLException {
    java.util.List<String> ids = new java.util.ArrayList<>();
    try (Connection c = db.adminConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT event_id FROM outbox_events ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  @Override
  public void close() {
    db.close();
  }

  @Override
  public String toString() {
    return db.toString();
  }
}
