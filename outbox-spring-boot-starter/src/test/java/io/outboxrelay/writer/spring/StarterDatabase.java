package io.outboxrelay.writer.spring;

import io.outboxrelay.testsupport.database.ScratchDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A throw-away database for a Spring application: the outbox table of the project's {@code
 * config/<dialect>/outbox-schema.sql} (plus a {@code headers} column where the file has none yet)
 * and an {@code orders} table for the business change. Dropped on close.
 */
public final class StarterDatabase implements AutoCloseable {

  private final ScratchDatabase db;
  private final boolean mariaDb;
  private final String user;
  private final String password;

  private StarterDatabase(ScratchDatabase db, boolean mariaDb, String user, String password) {
    this.db = db;
    this.mariaDb = mariaDb;
    this.user = user;
    this.password = password;
  }

  /** A fresh database on the shared private MariaDB of the local stack, with a user of its own. */
  public static StarterDatabase mariaDb() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    ScratchDatabase db = ScratchDatabase.onMariaDb(server, "starter");
    String user = "s_" + db.name().substring(Math.max(0, db.name().length() - 30));
    String password = "pw-" + UUID.randomUUID();
    db.dropAccountOnClose(user);
    server.createUser(user, password, "ALL PRIVILEGES ON `" + db.name() + "`.*");
    return new StarterDatabase(db, true, user, password).withTables();
  }

  /** A fresh database on the machine's PostgreSQL service. */
  public static StarterDatabase postgres() {
    PostgresService service = PostgresService.local();
    ScratchDatabase db = ScratchDatabase.onPostgres(service, "starter");
    return new StarterDatabase(db, false, service.user(), service.password()).withTables();
  }

  private StarterDatabase withTables() {
    try {
      db.runSqlFile(
          "config/" + (mariaDb ? "mysql" : "postgresql") + "/outbox-schema.sql", sql -> sql);
      db.execute(
          "ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS headers "
              + (mariaDb ? "JSON NULL" : "jsonb NULL"),
          "CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)");
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
    return this;
  }

  /** Whether this is the MariaDB one. */
  public boolean isMariaDb() {
    return mariaDb;
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

  /** Runs a SQL file of the project (a path relative to its root) as administrator. */
  public void runSqlFile(String relative) {
    db.runSqlFile(relative, sql -> sql);
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

  /** The SQL condition "event_id is {@code id}" for this dialect. */
  public String eventIdIs(String column, String id) {
    return (mariaDb ? column : column + "::text") + " = '" + id + "'";
  }

  @Override
  public void close() {
    db.close();
  }
}
