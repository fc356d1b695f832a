package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.mariadb.jdbc.MariaDbPoolDataSource;

/**
 * Consumers: events/s of the idempotent consumer against a plain consumer doing the same business
 * write, both reading the same pre-produced records from a topic into the bench's private MariaDB
 * (durable: {@code sync_binlog=1}, {@code innodb_flush_log_at_trx_commit=1}). Each first consumes a
 * small warm-up topic. Both borrow their connection per record from the same one-connection pool
 * with auto-commit off, as a service would.
 */
final class IdempotencyBench {

  private static final int ROUNDS = 3;

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
        // Alternate the two, several rounds: a durable commit per event makes both sensitive to
        // what else the machine does at that moment; the median of the rounds is reported.
        List<ConsumerRun> plains = new ArrayList<>();
        List<ConsumerRun> idempotents = new ArrayList<>();
        List<Long> plainRows = new ArrayList<>();
        List<Long> idempotentRows = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
          mariaDb.execute(database, "TRUNCATE TABLE payments");
          plains.add(PlainConsumer.consume(bootstrap, "bench-consumer-" + suffix, events, pool));
          plainRows.add(payments(database));
          mariaDb.execute(database, "TRUNCATE TABLE payments");
          idempotents.add(
              IdempotentConsumerRun.consume(bootstrap, "bench-consumer-" + suffix, events, pool));
          idempotentRows.add(payments(database));
        }
        report(table, events, plains, plainRows, idempotents, idempotentRows);
      }
    } finally {
      mariaDb.execute(null, "DROP DATABASE IF EXISTS `" + database + "`");
    }
  }

  private static void report(
      ResultTable table,
      int events,
      List<ConsumerRun> plains,
      List<Long> plainRows,
      List<ConsumerRun> idempotents,
      List<Long> idempotentRows) {
    double plain = median(plains.stream().mapToDouble(ConsumerRun::rate).toArray());
    double idempotent = median(idempotents.stream().mapToDouble(ConsumerRun::rate).toArray());
    double[] overheads = new double[plains.size()];
    for (int i = 0; i < overheads.length; i++) {
      overheads[i] = (plains.get(i).rate() / idempotents.get(i).rate() - 1) * 100;
    }
    table.add(
        "plain consumer, one transaction per event",
        String.format("%,.0f events/s", plain),
        "-",
        String.format(
            "median of %d rounds of %,d records (%s); %s each; INSERT + COMMIT per record,"
                + " commitSync per poll; first record to last commit; pooled connection,"
                + " autocommit off",
            plains.size(), events, rates(plains), rows(plainRows, events)));
    table.add(
        "idempotent consumer (IdempotentConsumer), same write",
        String.format("%,.0f events/s", idempotent),
        "-",
        String.format(
            "median of %d rounds (%s); %s each; + INSERT IGNORE processed_events in the same"
                + " transaction; the same pool",
            idempotents.size(), rates(idempotents), rows(idempotentRows, events)));
    double[] sorted = overheads.clone();
    Arrays.sort(sorted);
    table.add(
        "idempotency overhead",
        String.format("%+.1f%% time per event", median(overheads)),
        "<= 30%",
        String.format(
            "median of the rounds' overheads (each round: plain then idempotent); range %+.1f%%"
                + " to %+.1f%%",
            sorted[0], sorted[sorted.length - 1]));
  }

  private static String rates(List<ConsumerRun> runs) {
    return runs.stream()
        .map(r -> String.format("%,.0f", r.rate()))
        .collect(Collectors.joining(", ", "", " events/s"));
  }

  private static String rows(List<Long> rows, int events) {
    return rows.stream().allMatch(r -> r == events)
        ? String.format("%,d payments rows", events)
        : String.format("CHECK FAILED: payments rows %s for %,d records", rows, events);
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
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
