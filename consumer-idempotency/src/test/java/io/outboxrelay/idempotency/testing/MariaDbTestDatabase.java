package io.outboxrelay.idempotency.testing;

import io.outboxrelay.idempotency.Dialect;
import io.outboxrelay.localstack.LocalStack;
import io.outboxrelay.localstack.MariaDbServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** A database and its own user on the shared private MariaDB. */
final class MariaDbTestDatabase extends TestDatabase {

  private final MariaDbServer server;
  private final String name;
  private final String user;
  private final String password = "pw-" + UUID.randomUUID();

  MariaDbTestDatabase(String prefix) {
    server = LocalStack.shared().mariaDb();
    name = server.createDatabase(prefix);
    user = "u_" + name.substring(Math.max(0, name.length() - 30));
    server.createUser(user, password, "ALL PRIVILEGES ON `" + name + "`.*");
    createSchema(sql -> sql);
  }

  @Override
  public Dialect dialect() {
    return Dialect.MYSQL;
  }

  @Override
  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  @Override
  public String user() {
    return user;
  }

  @Override
  public String password() {
    return password;
  }

  @Override
  public int sessionsWaitingForLocks() throws SQLException {
    try (Connection c = server.adminConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT COUNT(*) FROM information_schema.innodb_trx t"
                    + " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
                    + " WHERE t.trx_state = 'LOCK WAIT' AND p.db = ?")) {
      s.setString(1, name);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getInt(1);
      }
    }
  }

  @Override
  public String daysAgo(int days) {
    return "CURRENT_TIMESTAMP(6) - INTERVAL " + days + " DAY";
  }

  @Override
  protected String businessTableDdl() {
    return "CREATE TABLE business_effects (effect_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
        + " event_id VARCHAR(255) NOT NULL, amount BIGINT NOT NULL) ENGINE = InnoDB";
  }

  @Override
  public void close() {
    server.execute(
        null, "DROP DATABASE IF EXISTS `" + name + "`", "DROP USER IF EXISTS " + account());
  }

  private String account() {
    return "'" + user + "'@'127.0.0.1'";
  }

  @Override
  public String toString() {
    return "MariaDB database " + name;
  }
}
