package io.outboxrelay.idempotency.testing;

import io.outboxrelay.idempotency.Dialect;
import io.outboxrelay.localstack.PostgresDatabase;
import io.outboxrelay.localstack.PostgresService;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** A database on the machine's PostgreSQL service, as its owner. */
final class PostgresTestDatabase extends TestDatabase {

  private final PostgresDatabase database;

  PostgresTestDatabase(String prefix) {
    database = PostgresService.local().createDatabase(prefix);
    createSchema(sql -> sql);
  }

  @Override
  public Dialect dialect() {
    return Dialect.POSTGRESQL;
  }

  @Override
  public String jdbcUrl() {
    return database.jdbcUrl();
  }

  @Override
  public String user() {
    return database.user();
  }

  @Override
  public String password() {
    return database.password();
  }

  @Override
  public int sessionsWaitingForLocks() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
      r.next();
      return r.getInt(1);
    }
  }

  @Override
  public String daysAgo(int days) {
    return "now() - interval '" + days + " days'";
  }

  @Override
  protected String businessTableDdl() {
    return "CREATE TABLE business_effects (effect_id BIGSERIAL PRIMARY KEY,"
        + " event_id VARCHAR(255) NOT NULL, amount BIGINT NOT NULL)";
  }

  @Override
  public void close() {
    database.close();
  }

  @Override
  public String toString() {
    return "PostgreSQL database " + database.name();
  }
}
