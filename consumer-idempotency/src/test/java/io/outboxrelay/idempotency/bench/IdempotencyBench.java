package io.outboxrelay.idempotency.bench;

import io.outboxrelay.idempotency.Dialect;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.testing.ProjectFiles;
import io.outboxrelay.localstack.MariaDbServer;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Events per second of the idempotent processor against a plain handler doing the same business
 * write (one INSERT into a business table), one event per transaction, on a private durable MariaDB
 * ({@code sync_binlog=1}, {@code innodb_flush_log_at_trx_commit=1}) over one reused connection.
 *
 * <p>Usage: {@code mvn -B -q -pl consumer-idempotency exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.outboxrelay.idempotency.bench.IdempotencyBench -Dexec.args="20000"}. The
 * argument is the number of events per measured run (default 20,000); each handler first runs a
 * tenth of that, at most 2,000, to warm up.
 */
public final class IdempotencyBench {

  private static final String INSERT_EFFECT =
      "INSERT INTO business_effects (event_id, amount) VALUES (?, ?)";

  private IdempotencyBench() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int warmUp = Math.max(1, Math.min(2_000, events / 10));
    try (MariaDbServer server = MariaDbServer.builder().build().start()) {
      String database = server.createDatabase("bench");
      for (String sql : ProjectFiles.sqlStatements("config/mysql/processed-events.sql")) {
        server.execute(database, sql);
      }
      server.execute(
          database,
          "CREATE TABLE business_effects (effect_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
              + " event_id VARCHAR(255) NOT NULL, amount BIGINT NOT NULL) ENGINE = InnoDB");
      try (Connection connection = server.adminConnection(database)) {
        connection.setAutoCommit(false);
        IdempotentProcessor processor =
            IdempotentProcessor.builder(new OneConnection(connection), "bench")
                .dialect(Dialect.MYSQL)
                .build();
        plain(connection, ids(warmUp));
        idempotent(processor, ids(warmUp));
        double plainRate = rate(events, plain(connection, ids(events)));
        double idempotentRate = rate(events, idempotent(processor, ids(events)));
        print(events, version(connection), plainRate, idempotentRate);
      }
    }
  }

  private static long plain(Connection connection, String[] ids) throws SQLException {
    long begin = System.nanoTime();
    for (String id : ids) {
      try (PreparedStatement insert = connection.prepareStatement(INSERT_EFFECT)) {
        insert.setString(1, id);
        insert.setLong(2, 1);
        insert.executeUpdate();
      }
      connection.commit();
    }
    return System.nanoTime() - begin;
  }

  private static long idempotent(IdempotentProcessor processor, String[] ids) {
    long begin = System.nanoTime();
    for (String id : ids) {
      Outcome outcome =
          processor.process(
              id,
              c -> {
                try (PreparedStatement insert = c.prepareStatement(INSERT_EFFECT)) {
                  insert.setString(1, id);
                  insert.setLong(2, 1);
                  insert.executeUpdate();
                }
              });
      if (outcome != Outcome.PROCESSED) {
        throw new IllegalStateException("event " + id + " was " + outcome);
      }
    }
    return System.nanoTime() - begin;
  }

  private static String[] ids(int count) {
    String[] ids = new String[count];
    for (int i = 0; i < count; i++) {
      ids[i] = UUID.randomUUID().toString();
    }
    return ids;
  }

  private static double rate(int events, long nanos) {
    return events / (nanos / 1e9);
  }

  private static String version(Connection connection) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement("SELECT VERSION()");
        java.sql.ResultSet row = select.executeQuery()) {
      row.next();
      String version = row.getString(1);
      connection.commit();
      return version;
    }
  }

  private static void print(int events, String version, double plain, double idempotent) {
    System.out.printf(
        Locale.ROOT,
        "%nconsumer-idempotency benchmark: %,d events per handler, one event per transaction,"
            + " private MariaDB %s (sync_binlog=1, innodb_flush_log_at_trx_commit=1), one"
            + " connection%n",
        events,
        version);
    System.out.printf(Locale.ROOT, "%-40s %12s %12s%n", "handler", "events/s", "us/event");
    System.out.printf(Locale.ROOT, "%-40s %,12.0f %12.1f%n", "plain INSERT", plain, 1e6 / plain);
    System.out.printf(
        Locale.ROOT,
        "%-40s %,12.0f %12.1f%n",
        "idempotent (processed_events + INSERT)",
        idempotent,
        1e6 / idempotent);
    System.out.printf(
        Locale.ROOT,
        "overhead: %+.1f%% time per event (idempotent runs at %.1f%% of the plain rate)%n",
        (plain / idempotent - 1) * 100,
        idempotent / plain * 100);
  }

  /** Hands out one connection again and again; closing what it hands out does nothing. */
  private static final class OneConnection implements DataSource {

    private final Connection shared;

    OneConnection(Connection connection) {
      this.shared =
          (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                      return null;
                    }
                    try {
                      return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
    }

    @Override
    public Connection getConnection() {
      return shared;
    }

    @Override
    public Connection getConnection(String user, String password) {
      return shared;
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
