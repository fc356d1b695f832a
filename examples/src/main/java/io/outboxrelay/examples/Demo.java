package io.outboxrelay.examples;

import io.outboxrelay.examples.orders.OrderService;
import io.outboxrelay.localstack.ConsumedRecord;
import io.outboxrelay.localstack.KafkaBroker;
import io.outboxrelay.localstack.MariaDbServer;
import io.outboxrelay.localstack.TopicReader;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.testing.OutboxDatabase;
import io.outboxrelay.relay.testing.ProjectFiles;
import io.outboxrelay.relay.testing.RelayProcess;
import io.outboxrelay.relay.testing.RelaySettings;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The demo: starts a private MariaDB with a binlog and a Kafka broker, runs the relay (the real
 * {@code bin/outbox-relay}) in CDC mode, writes order events in business transactions, and shows
 * them arriving in Kafka with their topic, key and headers. Everything is stopped at the end.
 */
public final class Demo {

  private static final PrintStream OUT = System.out;

  private Demo() {}

  /**
   * Runs the demo.
   *
   * @param args ignored
   * @throws Exception when a step fails
   */
  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("outbox-demo");
    OUT.println("== outbox-relay demo ==");
    step(1, "starting a private MariaDB (binlog on) and a Kafka broker (KRaft)");
    try (MariaDbServer mariaDb = MariaDbServer.builder().start();
        KafkaBroker kafka = KafkaBroker.builder().start()) {
      OUT.printf(
          "      MariaDB %s:%d, Kafka %s%n",
          mariaDb.host(), mariaDb.port(), kafka.bootstrapServers());

      step(
          2,
          "creating the application database: orders + outbox_events, an app user and a least-privilege relay user");
      try (OutboxDatabase db =
          OutboxDatabase.create(
              mariaDb::adminConnection,
              SourceFlavor.MARIADB,
              mariaDb.host(),
              mariaDb.port(),
              "127.0.0.1")) {
        db.admin(
            ProjectFiles.sqlStatements("config/examples/orders-schema.sql").toArray(String[]::new));
        // The demo grants the app user its business table too (the fixture grants app.* already).
        OUT.printf("      database %s%n", db.name());

        step(3, "starting the relay: bin/outbox-relay run --config demo.properties (CDC mode)");
        Path config =
            RelaySettings.cdc(db, kafka.bootstrapServers(), "demo")
                .with("router.topic.template", "outbox.event.${aggregate_type}")
                .with("relay.stats.interval", "60s")
                .writeTo(work.resolve("demo.properties"));
        RelayProcess relay = RelayProcess.run("relay", work, config);
        OUT.printf(
            "      ready (pid %d); its log: %s%n",
            relay.process().pid(), relay.process().logFile());

        step(4, "business transactions: each writes an order change and its event together");
        OrderService orders = new OrderService(() -> connect(db));
        List<String> created = new ArrayList<>();
        for (String customer : List.of("c-ada", "c-grace", "c-linus")) {
          String id = orders.createOrder(customer, new BigDecimal("42.50"), "EUR");
          created.add(id);
          OUT.printf("      %-16s %-26s -> OrderCreated%n", id, "created for " + customer);
        }
        orders.markPaid(created.get(0), "pay-1");
        OUT.printf("      %-16s %-26s -> OrderPaid%n", created.get(0), "paid");
        orders.markPaid(created.get(2), "pay-2");
        OUT.printf("      %-16s %-26s -> OrderPaid%n", created.get(2), "paid");
        String rolledBack = orders.createOrderThenFail("c-eve");
        OUT.printf("      %-16s %-26s -> no event%n", rolledBack, "failed, rolled back");

        step(5, "what arrived in Kafka (topic outbox.event.order)");
        List<ConsumedRecord> records =
            TopicReader.forPattern(kafka.bootstrapServers(), Pattern.compile("outbox\\.event\\..*"))
                .readUntil(r -> r.size() >= 5, Duration.ofSeconds(30));
        for (ConsumedRecord r : records) {
          OUT.printf(
              "      %s partition %d offset %d key %s%n",
              r.topic(), r.partition(), r.offset(), r.keyAsString());
          OUT.printf(
              "        headers: id=%s event_type=%s aggregate_type=%s aggregate_id=%s%n",
              r.header("id"),
              r.header("event_type"),
              r.header("aggregate_type"),
              r.header("aggregate_id"));
          OUT.printf("        value:   %s%n", r.valueAsString());
        }
        boolean none = records.stream().noneMatch(r -> rolledBack.equals(r.keyAsString()));
        OUT.printf(
            "      %d events; each order's events in commit order on one partition; rolled-back %s: %s%n",
            records.size(), rolledBack, none ? "nothing published" : "PUBLISHED (unexpected)");

        step(6, "stopping the relay with SIGTERM (it drains, commits its position and exits 0)");
        relay.process().terminate();
        OUT.printf("      exit code %d%n", relay.waitFor(Duration.ofSeconds(60)));
        if (records.size() != 5 || !none) {
          throw new IllegalStateException(
              "the demo did not see what it expected: " + records.size() + " events");
        }
      }
      OUT.println("      stopping MariaDB and Kafka");
    }
    OUT.println("== done: the relay's log is in " + work + " ==");
  }

  private static Connection connect(OutboxDatabase db) {
    try {
      return db.app();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void step(int n, String text) {
    OUT.printf("[%d] %s%n", n, text);
  }
}
