package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresDatabase;
import io.outboxrelay.testsupport.stack.PostgresService;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The application side: transaction time per event of {@link OutboxWriter} against the INSERT an
 * application writes by hand (the same seven columns, a random UUID as the id, a JDBC batch for
 * many events), 1 and 100 events per transaction, on the bench's private MariaDB and on the local
 * PostgreSQL. Each transaction is only the events and the durable commit: the writer's share of a
 * real business transaction is smaller. The two alternate, in turn first, for many rounds; the
 * table shows the median per event and the spread of the rounds, and the writer's overhead as the
 * median of the rounds' ratios.
 */
final class WriterBench {

  private static final String PAYLOAD =
      "{\"orderId\":\"order-42\",\"customerId\":\"customer-7\",\"amount\":\"12.50\","
          + "\"currency\":\"EUR\"}";

  private static final String INSERT =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
          + " aggregate_version, headers) VALUES (?, ?, ?, ?, ?, ?, ?)";

  private static final String INSERT_POSTGRES =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
          + " aggregate_version, headers) VALUES (?::uuid, ?, ?, ?, ?::jsonb, ?, ?::jsonb)";

  /** One way of writing a transaction of events. */
  private interface Variant {
    void transaction(Connection c, List<NewEvent> events) throws SQLException;
  }

  private final MariaDbServer mariaDb;
  private final int eventsPerRound;
  private final int rounds;

  WriterBench(MariaDbServer mariaDb, int eventsPerRound, int rounds) {
    this.mariaDb = mariaDb;
    this.eventsPerRound = eventsPerRound;
    this.rounds = rounds;
  }

  void run(ResultTable table) throws Exception {
    String database = mariaDb.createDatabase("bench_writer");
    try (Connection c = mariaDb.adminConnection(database)) {
      createTable(c, "mysql", "JSON NULL");
      measure(table, "MariaDB", c, INSERT);
    } finally {
      mariaDb.execute(null, "DROP DATABASE IF EXISTS `" + database + "`");
    }
    try (PostgresDatabase db = PostgresService.local().createDatabase("bench_writer");
        Connection c = db.connection()) {
      createTable(c, "postgresql", "jsonb NULL");
      measure(table, "PostgreSQL", c, INSERT_POSTGRES);
    }
  }

  private static void createTable(Connection c, String dialect, String headersType)
      throws SQLException {
    c.setAutoCommit(true);
    try (Statement s = c.createStatement()) {
      for (String sql : ProjectFiles.sqlStatements("config/" + dialect + "/outbox-schema.sql")) {
        s.execute(sql);
      }
      s.execute("ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS headers " + headersType);
    }
    c.setAutoCommit(false);
  }

  private void measure(ResultTable table, String database, Connection c, String insert)
      throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    Variant byWriter = (conn, events) -> writer.appendAll(conn, events);
    Variant byHand = (conn, events) -> handWritten(conn, insert, events);
    for (int perTransaction : new int[] {1, 100}) {
      List<NewEvent> events = new ArrayList<>();
      for (int i = 0; i < perTransaction; i++) {
        events.add(
            NewEvent.builder("order", "order-" + i, "OrderPaid")
                .payload(PAYLOAD)
                .aggregateVersion(i + 1)
                .build());
      }
      int transactions = Math.max(1, eventsPerRound / perTransaction);
      truncate(c);
      round(c, byWriter, events, transactions); // warm-up, not counted
      round(c, byHand, events, transactions);
      double[] writerMicros = new double[rounds];
      double[] handMicros = new double[rounds];
      double[] overheads = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        boolean writerFirst = r % 2 == 0;
        double first = round(c, writerFirst ? byWriter : byHand, events, transactions);
        double second = round(c, writerFirst ? byHand : byWriter, events, transactions);
        writerMicros[r] = (writerFirst ? first : second) / perTransaction;
        handMicros[r] = (writerFirst ? second : first) / perTransaction;
        overheads[r] = (writerMicros[r] / handMicros[r] - 1) * 100;
      }
      report(table, database, perTransaction, transactions, writerMicros, handMicros, overheads);
    }
  }

  /** Runs {@code transactions} transactions; returns the mean time of one, in microseconds. */
  private static double round(
      Connection c, Variant variant, List<NewEvent> events, int transactions) throws SQLException {
    long start = System.nanoTime();
    for (int t = 0; t < transactions; t++) {
      variant.transaction(c, events);
      c.commit();
    }
    return (System.nanoTime() - start) / 1_000.0 / transactions;
  }

  /** What an application writes without the writer: one INSERT, batched for many events. */
  private static void handWritten(Connection c, String insert, List<NewEvent> events)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      for (NewEvent e : events) {
        ps.setString(1, UUID.randomUUID().toString());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, (String) e.payload());
        ps.setLong(6, e.aggregateVersion());
        ps.setNull(7, java.sql.Types.VARCHAR);
        if (events.size() > 1) {
          ps.addBatch();
        }
      }
      if (events.size() > 1) {
        ps.executeBatch();
      } else {
        ps.executeUpdate();
      }
    }
  }

  private static void truncate(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("TRUNCATE TABLE outbox_events");
    }
    c.commit();
  }

  private void report(
      ResultTable table,
      String database,
      int perTransaction,
      int transactions,
      double[] writer,
      double[] hand,
      double[] overheads) {
    double[] sorted = overheads.clone();
    Arrays.sort(sorted);
    table.add(
        String.format(
            "writer vs hand-written INSERT, %s, %d event%s per transaction",
            database, perTransaction, perTransaction == 1 ? "" : "s"),
        String.format("%+.1f%% time per event", median(overheads)),
        "<= 5%",
        String.format(
            "writer %.0f µs/event (rounds %.0f-%.0f), hand-written %.0f µs/event (%.0f-%.0f);"
                + " overhead range %+.1f%% to %+.1f%%; median of %d rounds of %,d transactions"
                + " each, alternating which goes first; events and a durable commit only",
            median(writer),
            min(writer),
            max(writer),
            median(hand),
            min(hand),
            max(hand),
            sorted[0],
            sorted[sorted.length - 1],
            rounds,
            transactions));
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static double min(double[] values) {
    return Arrays.stream(values).min().orElse(Double.NaN);
  }

  private static double max(double[] values) {
    return Arrays.stream(values).max().orElse(Double.NaN);
  }
}
