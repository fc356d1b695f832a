package io.outboxrelay.examples;

import static io.outboxrelay.examples.Report.check;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.outboxrelay.examples.DemoTracing.Traced;
import io.outboxrelay.examples.notifications.CustomerOrder;
import io.outboxrelay.examples.notifications.NotificationService;
import io.outboxrelay.examples.orders.OrderService;
import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo, the whole loop: starts a private MariaDB with a binlog and a Kafka broker, runs the
 * relay (the real {@code bin/outbox-relay}) in CDC or polling mode, writes order events in business
 * transactions of the {@link OrderService} (each in a request span of OpenTelemetry), shows them
 * arriving in Kafka with the request's {@code traceparent}, has the {@link NotificationService}
 * apply them to its own database exactly once, each in a consumer span of the same trace, and
 * publishes one event again, as a relay does after a crash, to show it ignored by its event id, and
 * an old event under a new id, to show it ignored by its aggregate version. Everything is stopped
 * at the end. It throws (and the JVM exits non-zero) when it sees anything else than it describes.
 *
 * <p>Not thread-safe: one run per instance.
 */
public final class Demo {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /**
   * What step 5 wrote: orders created, the ones paid, one whose transaction rolled back, and the
   * request span of each event, by {@link #key}.
   */
  record Written(
      List<String> created,
      List<String> paid,
      String rolledBack,
      Map<String, SpanContext> requestSpans) {

    /** The key of an order's event in {@link #requestSpans}. */
    static String key(String orderId, String eventType) {
      return orderId + " " + eventType;
    }
  }

  private final MariaDbServer mariaDb;
  private final KafkaBroker kafka;
  private final DemoOptions options;
  private final Path work;
  private final Report report;

  private Demo(
      MariaDbServer mariaDb, KafkaBroker kafka, DemoOptions options, Path work, PrintStream out) {
    this.mariaDb = mariaDb;
    this.kafka = kafka;
    this.options = options;
    this.work = work;
    this.report = new Report(out);
  }

  /**
   * Runs the demo on a private MariaDB and Kafka broker that it starts and stops.
   *
   * @param args {@code --mode cdc} (the default) or {@code --mode polling}; see {@link
   *     DemoOptions#parse}
   * @throws Exception when a step fails or shows something unexpected
   */
  public static void main(String[] args) throws Exception {
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      System.out.println(DemoOptions.USAGE);
      return;
    }
    DemoOptions options;
    try {
      options = DemoOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(DemoOptions.USAGE);
      System.exit(2);
      return;
    }
    PrintStream out = System.out;
    Path work = Files.createTempDirectory("outbox-demo");
    out.printf("== outbox-relay demo (%s mode) ==%n", options.modeName());
    out.println("[1] starting a private MariaDB (binlog on) and a Kafka broker (KRaft)");
    try (MariaDbServer mariaDb = MariaDbServer.builder().start();
        KafkaBroker kafka = KafkaBroker.builder().start()) {
      out.printf(
          "      MariaDB %s:%d, Kafka %s%n",
          mariaDb.host(), mariaDb.port(), kafka.bootstrapServers());
      run(mariaDb, kafka, options, work, out);
      out.println("      stopping MariaDB and Kafka");
    }
    out.println("== done: the relay's log is in " + work + " ==");
  }

  /**
   * Runs steps 2 to 10 of the demo on servers that are already running. What it creates on them
   * (two databases and their users, the relay process) is removed or stopped before it returns;
   * topics and consumer groups stay, so give each run on a shared broker its own names.
   *
   * @param mariaDb a MariaDB server with a binlog, for both services' databases
   * @param kafka the broker
   * @param options the mode and names
   * @param work where the relay's configuration and log go
   * @param out where the demo reports
   * @throws IllegalStateException when the demo sees something else than it expects
   * @throws Exception when a step fails
   */
  public static void run(
      MariaDbServer mariaDb, KafkaBroker kafka, DemoOptions options, Path work, PrintStream out)
      throws Exception {
    new Demo(mariaDb, kafka, options, work, out).run();
  }

  private void run() throws Exception {
    try (DemoTracing tracing = new DemoTracing();
        OutboxDatabase orderDb = createOrderDatabase();
        NotificationDatabase notificationDb = createNotificationDatabase();
        RelayProcess relay = startRelay(orderDb)) {
      Written written = writeOrders(new OrderService(() -> connect(orderDb)), tracing);
      List<ConsumedRecord> records = readKafka(written);
      report.step(
          7,
          "starting the notification service: an IdempotentConsumer (group "
              + options.consumerGroup()
              + ") applies the events to its own database");
      Deliveries deliveries = new Deliveries();
      Counters counters;
      try (NotificationService service =
          NotificationService.start(
              notificationDb.dataSource(),
              kafka.bootstrapServers(),
              options.orderTopic(),
              options.consumerGroup(),
              tracing.openTelemetry(),
              deliveries)) {
        NotificationSteps steps =
            new NotificationSteps(service, deliveries, kafka.bootstrapServers(), report);
        List<CustomerOrder> applied = steps.awaitApplied(records, written);
        showTrace(records, written, tracing);
        steps.redeliverPaid(records, written.paid().get(0), applied);
        steps.redeliverStaleCreated(records, written.paid().get(0), applied);
        report.step(
            10,
            "stopping the notification service, then the relay with SIGTERM (it waits for Kafka's"
                + " acks of what is in flight and exits 0)");
        service.close(); // idempotent: the counters are final once it has stopped
        counters = service.counters();
      }
      report.line(
          "notification service: %d processed, %d duplicate(s), %d stale, %d failure(s)",
          counters.processed(), counters.duplicates(), counters.stale(), counters.failures());
      check(
          counters.processed() == records.size()
              && counters.duplicates() == 1
              && counters.stale() == 1
              && counters.failures() == 0,
          "unexpected consumer counts: " + counters);
      relay.process().terminate();
      int exitCode = relay.waitFor(Duration.ofSeconds(60));
      report.line("relay exit code %d", exitCode);
      check(exitCode == 0, "the relay exited with " + exitCode + "; its log is in " + work);
    }
  }

  private OutboxDatabase createOrderDatabase() {
    report.step(
        2,
        "creating the order service's database: orders + outbox_events, an app user and a"
            + " least-privilege relay user");
    OutboxDatabase db = OutboxDatabase.on(mariaDb);
    db.admin(
        ProjectFiles.sqlStatements("config/examples/orders-schema.sql").toArray(String[]::new));
    report.line("database %s", db.name());
    if (options.mode() == RelayMode.POLLING) {
      db.grantPolling();
      report.line(
          "polling mode: the relay user also gets SELECT, UPDATE, DELETE on outbox_events"
              + " (config/mysql/relay-grants.sql)");
    }
    return db;
  }

  private NotificationDatabase createNotificationDatabase() throws SQLException {
    report.step(
        3,
        "creating the notification service's own database: customer_orders, notifications,"
            + " processed_events");
    NotificationDatabase db = NotificationDatabase.create(mariaDb);
    report.line(
        "database %s, user %s (no access to the order service's database)", db.name(), db.user());
    return db;
  }

  private RelayProcess startRelay(OutboxDatabase db) {
    report.step(
        4,
        "starting the relay: bin/outbox-relay run --config demo.properties ("
            + options.modeName()
            + " mode)");
    RelaySettings settings =
        options.mode() == RelayMode.CDC
            ? RelaySettings.cdc(db, kafka.bootstrapServers(), "demo")
            : RelaySettings.polling(db, kafka.bootstrapServers(), "demo");
    Path config =
        settings
            .with("router.topic.template", options.topicPrefix() + "${aggregate_type}")
            .with("relay.stats.interval", "60s")
            .writeTo(work.resolve("demo.properties"));
    RelayProcess relay = RelayProcess.start("relay", work, "run", "--config", config.toString());
    try {
      relay.awaitReady();
    } catch (RuntimeException e) {
      relay.close();
      throw e;
    }
    report.line("ready (pid %d); its log: %s", relay.process().pid(), relay.process().logFile());
    report.line(
        options.mode() == RelayMode.CDC
            ? "it reads the inserts into outbox_events from the binlog (embedded Debezium)"
            : "it claims due outbox_events rows with SELECT ... FOR UPDATE SKIP LOCKED every 50 ms"
                + " and marks them PUBLISHED once Kafka has them");
    return relay;
  }

  private Written writeOrders(OrderService orders, DemoTracing tracing) throws SQLException {
    report.step(
        5,
        "business transactions: each writes an order change and its event together, through the"
            + " outbox writer, in a request span (the writer stores its traceparent with the event)");
    List<String> created = new ArrayList<>();
    Map<String, SpanContext> spans = new LinkedHashMap<>();
    for (String customer : List.of("c-ada", "c-grace", "c-linus")) {
      Traced<String> request =
          tracing.inRequestSpan(
              "POST /orders", () -> orders.createOrder(customer, new BigDecimal("42.50"), "EUR"));
      String id = request.result();
      created.add(id);
      spans.put(Written.key(id, "OrderCreated"), request.span());
      report.line(
          "%-16s %-20s -> OrderCreated  service span trace=%s span=%s",
          id, "created for " + customer, request.span().getTraceId(), request.span().getSpanId());
    }
    List<String> paid = List.of(created.get(0), created.get(2));
    for (int i = 0; i < paid.size(); i++) {
      String id = paid.get(i);
      String payment = "pay-" + (i + 1);
      Traced<Void> request =
          tracing.inRequestSpan(
              "POST /orders/{id}/payments",
              () -> {
                orders.markPaid(id, payment);
                return null;
              });
      spans.put(Written.key(id, "OrderPaid"), request.span());
      report.line(
          "%-16s %-20s -> OrderPaid     service span trace=%s span=%s",
          id, "paid", request.span().getTraceId(), request.span().getSpanId());
    }
    String rolledBack =
        tracing.inRequestSpan("POST /orders", () -> orders.createOrderThenFail("c-eve")).result();
    report.line("%-16s %-20s -> no event", rolledBack, "failed, rolled back");
    return new Written(created, paid, rolledBack, Map.copyOf(spans));
  }

  private List<ConsumedRecord> readKafka(Written written) {
    int expected = written.created().size() + written.paid().size();
    report.step(6, "what arrived in Kafka (topic " + options.orderTopic() + ")");
    List<ConsumedRecord> records =
        TopicReader.forTopics(kafka.bootstrapServers(), options.orderTopic())
            .readUntil(r -> r.size() >= expected, WAIT);
    for (ConsumedRecord r : records) {
      report.line(
          "%s partition %d offset %d key %s",
          r.topic(), r.partition(), r.offset(), r.keyAsString());
      report.line(
          "  headers: id=%s event_type=%s aggregate_type=%s aggregate_id=%s aggregate_version=%s",
          r.header("id"),
          r.header("event_type"),
          r.header("aggregate_type"),
          r.header("aggregate_id"),
          r.header("aggregate_version"));
      report.line("  trace:   traceparent=%s", r.header("traceparent"));
      report.line("  value:   %s", r.valueAsString());
    }
    boolean traced = records.stream().allMatch(r -> carriesItsRequestSpan(r, written));
    boolean inOrder = written.created().stream().allMatch(id -> inOrder(records, id, written));
    boolean none = records.stream().noneMatch(r -> written.rolledBack().equals(r.keyAsString()));
    report.line(
        "%d events; each order's events in commit order on one partition: %s; rolled-back %s: %s",
        records.size(),
        inOrder ? "yes" : "NO (unexpected)",
        written.rolledBack(),
        none ? "nothing published" : "PUBLISHED (unexpected)");
    report.line(
        "each event's traceparent names its request's trace and span: %s",
        traced ? "yes" : "NO (unexpected)");
    check(
        records.size() == expected && inOrder && none && traced,
        "expected " + expected + " events in order, each with its traceparent, got " + records);
    return records;
  }

  /** Whether the record's traceparent is that of the request span that wrote its event. */
  private static boolean carriesItsRequestSpan(ConsumedRecord r, Written written) {
    SpanContext span =
        written.requestSpans().get(Written.key(r.keyAsString(), r.header("event_type")));
    return span != null && traceparent(span).equals(r.header("traceparent"));
  }

  private static String traceparent(SpanContext span) {
    return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getTraceFlags().asHex();
  }

  /**
   * Shows, per event, the notification service's consumer span: same trace as the request that
   * wrote the event, with that request's span as its parent.
   */
  private void showTrace(List<ConsumedRecord> records, Written written, DemoTracing tracing)
      throws InterruptedException {
    report.line("its consumer spans (one per event; parent = the request span that wrote it):");
    boolean agree = true;
    for (ConsumedRecord r : records) {
      String eventType = r.header("event_type");
      SpanData span =
          tracing
              .awaitConsumerSpan(r.header("id"), WAIT)
              .orElseThrow(
                  () -> new IllegalStateException("no consumer span for " + r.header("id")));
      report.line(
          "  %-16s %-12s consumer span trace=%s parent=%s",
          r.keyAsString(), eventType, span.getTraceId(), span.getParentSpanId());
      SpanContext request = written.requestSpans().get(Written.key(r.keyAsString(), eventType));
      agree &=
          request != null
              && span.getTraceId().equals(request.getTraceId())
              && span.getParentSpanId().equals(request.getSpanId());
    }
    report.line(
        "trace ids at the service, in the Kafka headers and in the consumer spans agree: %s",
        agree ? "yes" : "NO (unexpected)");
    check(agree, "a consumer span is not in its request's trace");
  }

  /**
   * Whether the order's events are on one partition: OrderCreated (version 1), then OrderPaid
   * (version 2) if paid.
   */
  private static boolean inOrder(List<ConsumedRecord> records, String orderId, Written written) {
    List<ConsumedRecord> mine =
        records.stream().filter(r -> orderId.equals(r.keyAsString())).toList();
    List<String> expected =
        written.paid().contains(orderId)
            ? List.of("OrderCreated", "OrderPaid")
            : List.of("OrderCreated");
    List<String> versions = expected.size() == 2 ? List.of("1", "2") : List.of("1");
    return mine.stream().map(r -> r.header("event_type")).toList().equals(expected)
        && mine.stream().map(r -> r.header("aggregate_version")).toList().equals(versions)
        && mine.stream().map(ConsumedRecord::partition).distinct().count() == 1;
  }

  private static Connection connect(OutboxDatabase db) {
    try {
      return db.app();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
