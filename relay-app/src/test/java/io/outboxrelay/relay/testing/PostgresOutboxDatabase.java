package io.outboxrelay.relay.testing;

import io.outboxrelay.localstack.PostgresDatabase;
import io.outboxrelay.localstack.PostgresService;
import io.outboxrelay.localstack.ProjectFiles;
import io.outboxrelay.relay.config.SourceFlavor;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh PostgreSQL database on the local service holding the outbox table, created from {@code
 * config/postgresql/outbox-schema.sql}, with an application role and a relay role that get the
 * grants of {@code config/postgresql/relay-grants.sql}. Dropped (with its roles) on close.
 */
public final class PostgresOutboxDatabase implements SourceDatabase {

  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final PostgresService service;
  private final PostgresDatabase database;
  private final String appUser;
  private final String relayUser;
  private final String password = "pw-" + UUID.randomUUID();

  private PostgresOutboxDatabase(PostgresService service, PostgresDatabase database) {
    this.service = service;
    this.database = database;
    String suffix =
        database.name().length() > 30
            ? database.name().substring(database.name().length() - 30)
            : database.name();
    this.appUser = "app_" + suffix;
    this.relayUser = "relay_" + suffix;
  }

  /**
   * Creates the database, its table and its roles on the local PostgreSQL service.
   *
   * @return the database
   */
  public static PostgresOutboxDatabase create() {
    PostgresService service = PostgresService.local();
    PostgresOutboxDatabase db =
        new PostgresOutboxDatabase(
            service, service.createDatabase("obx" + COUNTER.incrementAndGet()));
    db.setUp();
    return db;
  }

  private void setUp() {
    try (Connection c = database.connection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(true);
      for (String sql : ProjectFiles.sqlStatements("config/postgresql/outbox-schema.sql")) {
        st.execute(sql);
      }
      for (String sql : ProjectFiles.sqlStatements("config/postgresql/relay-grants.sql")) {
        st.execute(
            sql.replace("ROLE app ", "ROLE " + appUser + " ")
                .replace("TO app;", "TO " + appUser + ";")
                .replace("TO app", "TO " + appUser)
                .replace("outbox_relay", relayUser)
                .replace("'change-me'", "'" + password + "'"));
      }
    } catch (SQLException e) {
      close();
      throw new IllegalStateException(
          "cannot set up PostgreSQL outbox database " + database.name(), e);
    }
  }

  @Override
  public SourceFlavor flavor() {
    return SourceFlavor.POSTGRESQL;
  }

  @Override
  public String host() {
    return service.host();
  }

  @Override
  public int port() {
    return service.port();
  }

  @Override
  public String name() {
    return database.name();
  }

  @Override
  public String relayUser() {
    return relayUser;
  }

  @Override
  public String password() {
    return password;
  }

  @Override
  public Connection app() throws SQLException {
    // stringtype=unspecified lets plain string parameters fill uuid and jsonb columns.
    Connection c =
        DriverManager.getConnection(
            "jdbc:postgresql://" + host() + ":" + port() + "/" + name() + "?stringtype=unspecified",
            appUser,
            password);
    c.setAutoCommit(false);
    return c;
  }

  @Override
  public void admin(String... statements) {
    try (Connection c = database.connection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(true);
      for (String s : statements) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public Object adminQuery(String sql) {
    try (Connection c = database.connection();
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getObject(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    database.close();
    try (Connection c =
            DriverManager.getConnection(
                service.jdbcUrl("postgres"), service.user(), service.password());
        Statement st = c.createStatement()) {
      st.execute("DROP ROLE IF EXISTS " + appUser);
      st.execute("DROP ROLE IF EXISTS " + relayUser);
    } catch (SQLException e) {
      // best effort
    }
  }
}
