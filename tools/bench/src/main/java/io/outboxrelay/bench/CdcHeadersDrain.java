package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The CDC drain of the same backlog without application headers and with {@code N} per event (a W3C
 * {@code traceparent} and {@code N - 1} others of about 20 bytes, in the {@code headers} column, as
 * the outbox writer stores them), one after the other in one run, each on a database and topics of
 * its own: what parsing the column and publishing the headers costs. Two rows.
 */
final class CdcHeadersDrain {

  private static final String INSERT =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
          + " headers) VALUES (?, ?, ?, ?, ?, ?)";
  private static final int PER_TRANSACTION = 1000;

  private final BenchEnv env;

  CdcHeadersDrain(BenchEnv env) {
    this.env = env;
  }

  /**
   * @param events the backlog of each drain
   * @param headers application headers per event in the second drain, at least 1
   */
  void run(ResultTable table, int events, int headers) throws Exception {
    for (int n : new int[] {0, headers}) {
      double seconds = drain(events, n);
      table.add(
          String.format(
              "CDC drain of a %,d-event backlog, %s",
              events,
              n == 0
                  ? "no application headers"
                  : n + " application header" + (n == 1 ? "" : "s") + " per event"),
          String.format("%,.0f events/s", events / seconds),
          "-",
          String.format(
              "%.2f s from ready to the last ack; %s; the two drains one after the other, each"
                  + " on its own database and topics",
              seconds,
              n == 0
                  ? "headers column NULL"
                  : "headers column {\"traceparent\":\"00-…-01\"" + (n > 1 ? ", …" : "") + "}"));
    }
  }

  /** Writes the backlog while the relay is stopped, then times its drain from ready. */
  private double drain(int events, int headers) throws Exception {
    String name = "bench-cdc-hdr" + headers + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    try (OutboxDatabase db = OutboxDatabase.on(env.mariaDb());
        TopicCounter counter = new TopicCounter(env.bootstrapServers())) {
      List<String> topics =
          BenchEvents.AGGREGATE_TYPES.stream()
              .map(t -> RelaySettings.topicPrefix(name) + t)
              .toList();
      counter.createLogAppendTimeTopics(topics, 3);
      Path config =
          env.writeConfig(
              RelaySettings.cdc(db, env.bootstrapServers(), name)
                  .with("relay.stats.interval", "10s"),
              name);
      RelayProcess first = env.startRelay(name + "-init", config);
      first.awaitReady(); // records the current binlog position
      first.process().terminate();
      first.waitFor(Duration.ofSeconds(60));

      write(db, events, headers);

      RelayProcess relay = env.startRelay(name, config);
      try {
        relay.awaitReady();
        long t0 = System.nanoTime();
        counter.awaitCount(topics, events);
        return (System.nanoTime() - t0) / 1e9;
      } finally {
        relay.process().terminate();
        relay.waitFor(Duration.ofSeconds(60));
      }
    }
  }

  private static void write(OutboxDatabase db, int events, int headers) throws SQLException {
    try (Connection c = db.app();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (int i = 0; i < events; i++) {
        TestEvent e = BenchEvents.next(i);
        ps.setString(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, e.payload());
        ps.setString(6, headers == 0 ? null : headersJson(headers));
        ps.addBatch();
        if ((i + 1) % PER_TRANSACTION == 0 || i + 1 == events) {
          ps.executeBatch();
          c.commit();
        }
      }
    }
  }

  /** A traceparent of a random trace and span, then {@code n - 1} headers {@code h<i>}. */
  static String headersJson(int n) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    StringBuilder json =
        new StringBuilder(64 + 32 * n)
            .append("{\"traceparent\":\"00-")
            .append(String.format(Locale.ROOT, "%016x%016x", r.nextLong(), r.nextLong()))
            .append('-')
            .append(String.format(Locale.ROOT, "%016x", r.nextLong()))
            .append("-01\"");
    for (int i = 2; i <= n; i++) {
      json.append(",\"h")
          .append(i)
          .append("\":\"")
          .append(String.format(Locale.ROOT, "value-%012d", r.nextLong(1_000_000_000_000L)))
          .append('"');
    }
    return json.append('}').toString();
  }
}
