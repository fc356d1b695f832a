package io.outboxrelay.bench;

import io.outboxrelay.localstack.KafkaBroker;
import io.outboxrelay.localstack.MariaDbServer;
import io.outboxrelay.relay.testing.ProjectFiles;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.mariadb.jdbc.MariaDbPoolDataSource;

/**
 * Consumers: events/s of the idempotent consumer against a plain consumer doing the same business
 * write, both reading the same pre-produced records from a topic into the bench's private MariaDB
 * (durable: {@code sync_binlog=1}, {@code innodb_flush_log_at_trx_commit=1}). Each first consumes a
 * small warm-up topic. Both borrow their connection per record from the same one-connection pool
 * with auto-commit off, as a service would.
 */
final class IdempotencyBench {

  private final MariaDbServer mariaDb;
  private final KafkaBroker kafka;

  IdempotencyBench(MariaDbServer mariaDb, KafkaBroker kafka) {
    this.mariaDb = mariaDb;
    this.kafka = kafka;
  }

  void run(ResultTable table, int events) throws Exception {
    String bootstrap = kafka.bootstrapServers();
    String database = mariaDb.createDatabase("bench_consumer");
    try {
      for (String sql : ProjectFiles.sqlStatements("config/mysql/processed-events.sql")) {
        mariaDb.execute(database, sql);
      }
      mariaDb.execute(database, Payments.DDL);
      int warmUp = Math.max(1, Math.min(2_000, events / 10));
      String suffix = Long.toHexString(System.nanoTime() & 0xffffff);
      EventTopic.fill(bootstrap, "bench-consumer-warmup-" + suffix, warmUp);
      EventTopic.fill(bootstrap, "bench-consumer-" + suffix, events);
      try (MariaDbPoolDataSource pool = pool(database)) {
        PlainConsumer.consume(bootstrap, "bench-consumer-warmup-" + suffix, warmUp, pool);
        IdempotentConsumerRun.consume(bootstrap, "bench-consumer-warmup-" + suffix, warmUp, pool);
        mariaDb.execute(database, "TRUNCATE TABLE payments");
        ConsumerRun plain =
            PlainConsumer.consume(bootstrap, "bench-consumer-" + suffix, events, pool);
        long plainRows = payments(database);
        mariaDb.execute(database, "TRUNCATE TABLE payments");
        ConsumerRun idempotent =
            IdempotentConsumerRun.consume(bootstrap, "bench-consumer-" + suffix, events, pool);
        long idempotentRows = payments(database);
        report(table, events, plain, plainRows, idempotent, idempotentRows);
      }
    } finally {
      mariaDb.execute(null, "DROP DATABASE IF EXISTS `" + database + "`");
    }
  }

  private static String rows(long rows, int events) {
    return rows == events
        ? String.format("%,d payments rows", rows)
        : String.format("CHECK FAILED: %,d payments rows for %,d records", rows, events);
  }

  private static void report(
      ResultTable table,
      int events,
      ConsumerRun plain,
      long plainRows,
      ConsumerRun idempotent,
      long idempotentRows) {
    table.add(
        "plain consumer, one transaction per event",
        String.format("%,.0f events/s", plain.rate()),
        "-",
        String.format(
            "%,d records -> %s in %.2f s; INSERT + COMMIT per record, commitSync"
                + " per poll; first record to last commit; pooled connection, autocommit off",
            events, rows(plainRows, events), plain.seconds()));
    table.add(
        "idempotent consumer (IdempotentConsumer), same write",
        String.format("%,.0f events/s", idempotent.rate()),
        "-",
        String.format(
            "%,d records -> %s in %.2f s; + INSERT IGNORE processed_events in the"
                + " same transaction; the same pool",
            events, rows(idempotentRows, events), idempotent.seconds()));
    table.add(
        "idempotency overhead",
        String.format("%+.1f%% time per event", (plain.rate() / idempotent.rate() - 1) * 100),
        "<= 30%",
        String.format(
            "idempotent runs at %.0f%% of the plain rate (%.0f vs %.0f µs per event)",
            idempotent.rate() / plain.rate() * 100, 1e6 / idempotent.rate(), 1e6 / plain.rate()));
  }

  /**
   * One pooled connection with auto-commit off, used by both consumers alike: the consumer loop is
   * single-threaded, and neither pays for switching auto-commit per transaction.
   */
  private MariaDbPoolDataSource pool(String database) throws SQLException {
    MariaDbPoolDataSource pool = new MariaDbPoolDataSource();
    // User and password first: setting the URL starts the pool.
    pool.setUser(mariaDb.adminUser());
    pool.setPassword(mariaDb.adminPassword());
    pool.setUrl(mariaDb.jdbcUrl(database) + "?maxPoolSize=1&minPoolSize=1&autocommit=false");
    return pool;
  }

  private long payments(String database) throws SQLException {
    try (Connection c = mariaDb.adminConnection(database);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM payments")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
