package io.outboxrelay.examples.spring;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.outboxrelay.examples.spring.notifications.CustomerOrder;
import io.outboxrelay.examples.spring.notifications.CustomerOrders;
import io.outboxrelay.examples.spring.notifications.Notification;
import io.outboxrelay.examples.spring.notifications.NotificationServiceApplication;
import io.outboxrelay.examples.spring.notifications.Notifications;
import io.outboxrelay.examples.spring.notifications.OrderEventsListener;
import io.outboxrelay.examples.spring.orders.OrderService;
import io.outboxrelay.examples.spring.orders.OrderServiceApplication;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The Spring Boot services around the relay, end to end: starts (or is given) a MariaDB with a
 * binlog and a Kafka broker, creates the two services' databases, runs the relay distribution in
 * CDC mode ({@code delivery.guarantee=exactly-once}) on the order service's, starts the
 * notification service and the order service as Spring Boot applications, and then:
 *
 * <ol>
 *   <li>places orders and pays some, each in a request span: the order and its event commit
 *       together; one order whose transaction fails leaves neither;
 *   <li>waits until the notification service applied each event once (one ORDER_CONFIRMED per
 *       order, one PAYMENT_RECEIVED per paid order), and checks that each consumer span's parent is
 *       the request span that wrote the event;
 *   <li>publishes one event again, byte for byte (a redelivery): skipped as a duplicate, nothing
 *       changes;
 *   <li>places an order the listener refuses: tried {@value
 *       NotificationServiceApplication#ATTEMPTS} times, each rolled back with its {@code
 *       processed_events} row, then dead-lettered;
 *   <li>reads the services' meters (what Actuator shows): the events the order service appended,
 *       and what the notification service's listener did, by outcome.
 * </ol>
 *
 * <p>It throws when it sees anything else than it describes. Not thread-safe: one run per instance.
 */
public final class SpringServicesDemo {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> OUTCOME =
      AttributeKey.stringKey("outbox_relay.outcome");

  private final MariaDbServer mariaDb;
  private final KafkaBroker kafka;
  private final Path work;
  private final PrintStream out;
  private final String name = "spring-" + UUID.randomUUID().toString().substring(0, 8);
  private int step;

  private SpringServicesDemo(MariaDbServer mariaDb, KafkaBroker kafka, Path work, PrintStream out) {
    this.mariaDb = mariaDb;
    this.kafka = kafka;
    this.work = work;
    this.out = out;
  }

  /**
   * Runs the demo on a private MariaDB and Kafka broker that it starts and stops.
   *
   * @param args none
   * @throws Exception when a step fails or shows something unexpected
   */
  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    Path work = Files.createTempDirectory("outbox-spring-demo");
    out.println("== outbox-relay: Spring Boot services demo ==");
    try (MariaDbServer mariaDb = MariaDbServer.builder().start();
        KafkaBroker kafka = KafkaBroker.builder().start()) {
      run(mariaDb, kafka, work, out);
    }
    out.println("== done: the relay's log is in " + work + " ==");
    System.exit(0); // Spring's and Kafka's non-daemon threads are gone, but be sure
  }

  /**
   * Runs the demo on servers that are already running; what it creates on them (two databases, the
   * relay process, the applications) is removed or stopped before it returns.
   *
   * @param mariaDb a MariaDB server with a binlog
   * @param kafka the broker
   * @param work where the relay's configuration and log go
   * @param out where the demo reports
   * @return the report's lines, for a test
   * @throws Exception when a step fails or shows something unexpected
   */
  public static List<String> run(
      MariaDbServer mariaDb, KafkaBroker kafka, Path work, PrintStream out) throws Exception {
    SpringServicesDemo demo = new SpringServicesDemo(mariaDb, kafka, work, out);
    return demo.run();
  }

  private final List<String> report = new ArrayList<>();

  private void say(String format, Object... args) {
    String line = String.format(format, args);
    report.add(line);
    out.println(line);
  }

  private void step(String what) {
    say("[%d] %s", ++step, what);
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  private List<String> run() throws Exception {
    String topic = RelaySettings.topicPrefix(name) + "order";
    String notificationDb = mariaDb.createDatabase("notif");
    step("creating the order service's database (the outbox table and the relay's user)");
    try (OutboxDatabase orderDb = OutboxDatabase.on(mariaDb)) {
      step("starting the relay (bin/outbox-relay, CDC, delivery.guarantee=exactly-once)");
      Path config =
          RelaySettings.cdc(orderDb, kafka.bootstrapServers(), name)
              .with("delivery.guarantee", "exactly-once")
              .with("delivery.progress.topic", name + "-progress")
              .writeTo(work.resolve("relay.properties"));
      try (RelayProcess relay = RelayProcess.run("relay", work, config)) {
        step("starting the notification service and the order service (Spring Boot)");
        try (ConfigurableApplicationContext notifications =
                startNotifications(notificationDb, topic);
            ConfigurableApplicationContext orders = startOrders(orderDb)) {
          runServices(orders, notifications, topic);
        }
        relay.process().terminate();
        int exit = relay.waitFor(Duration.ofSeconds(60));
        say("relay stopped with exit code %d", exit);
        check(exit == 0, "the relay exited with " + exit + "; its log is in " + work);
      }
    } finally {
      mariaDb.execute("mysql", "DROP DATABASE IF EXISTS " + notificationDb);
    }
    return report;
  }

  private ConfigurableApplicationContext startNotifications(String database, String topic) {
    return new SpringApplicationBuilder(NotificationServiceApplication.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.application.name=notification-service",
            "spring.datasource.url=" + mariaDb.jdbcUrl(database),
            "spring.datasource.username=" + mariaDb.adminUser(),
            "spring.datasource.password=" + mariaDb.adminPassword(),
            "spring.flyway.locations=classpath:db/notifications",
            "outbox.migrations.enabled=true",
            "outbox.migrations.outbox-table=false",
            "outbox.writer.enabled=false",
            "outbox.consumer.version-check.enabled=true",
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "spring.kafka.consumer.auto-offset-reset=earliest",
            // The relay runs with exactly-once: records of aborted transactions stay unseen.
            "spring.kafka.consumer.isolation-level=read-committed",
            "orders.topic=" + topic)
        .run();
  }

  private ConfigurableApplicationContext startOrders(OutboxDatabase db) {
    return new SpringApplicationBuilder(OrderServiceApplication.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.application.name=order-service",
            "spring.datasource.url=" + db.jdbcUrl(),
            "spring.datasource.username=" + mariaDb.adminUser(),
            "spring.datasource.password=" + mariaDb.adminPassword(),
            "spring.flyway.locations=classpath:db/orders",
            // The outbox table is there already (created with the relay's grants).
            "spring.flyway.baseline-on-migrate=true",
            "spring.flyway.baseline-version=0",
            "outbox.migrations.enabled=true",
            "outbox.migrations.processed-events=false")
        .run();
  }

  private void runServices(
      ConfigurableApplicationContext orders,
      ConfigurableApplicationContext notifications,
      String topic)
      throws Exception {
    OrderService service = orders.getBean(OrderService.class);
    OpenTelemetry telemetry = orders.getBean(OpenTelemetry.class);
    step(
        "placing 4 orders and paying 2, each in a request span; one more order fails and rolls back");
    Map<String, SpanContext> requestSpans = new LinkedHashMap<>();
    List<String> placed = new ArrayList<>();
    for (String customer : List.of("ada", "grace", "edsger", "barbara")) {
      String[] id = new String[1];
      SpanContext span =
          inSpan(telemetry, "place order", () -> id[0] = service.place(customer, 4200));
      placed.add(id[0]);
      requestSpans.put(id[0] + " OrderCreated", span);
    }
    List<String> paid = placed.subList(0, 2);
    for (String id : paid) {
      requestSpans.put(id + " OrderPaid", inSpan(telemetry, "pay order", () -> service.pay(id)));
    }
    try {
      service.placeAndFail("mallory");
      check(false, "the failing order committed");
    } catch (IllegalStateException expected) {
      say("      the failing order rolled back: %s", expected.getMessage());
    }

    step("waiting for the notification service to apply each event once");
    CustomerOrders customerOrders = notifications.getBean(CustomerOrders.class);
    Notifications sent = notifications.getBean(Notifications.class);
    await(
        () ->
            placed.stream()
                .allMatch(id -> sent.findByOrderId(id).size() == (paid.contains(id) ? 2 : 1)),
        "every order's notifications");
    for (String id : placed) {
      List<String> kinds = sent.findByOrderId(id).stream().map(Notification::kind).toList();
      List<String> expected =
          paid.contains(id)
              ? List.of("ORDER_CONFIRMED", "PAYMENT_RECEIVED")
              : List.of("ORDER_CONFIRMED");
      check(kinds.equals(expected), "order " + id + " has notifications " + kinds);
      String status = customerOrders.findById(id).map(CustomerOrder::status).orElse("none");
      check(status.equals(paid.contains(id) ? "PAID" : "CREATED"), "order " + id + " is " + status);
      say("      order %s: %s, notifications %s", id.substring(0, 8), status, kinds);
    }
    check(sent.count() == placed.size() + paid.size(), "notifications: " + sent.count());

    List<ConsumedRecord> records =
        TopicReader.forTopics(kafka.bootstrapServers(), topic)
            .readUntil(r -> r.size() >= requestSpans.size(), WAIT);
    check(records.size() == requestSpans.size(), "records in Kafka: " + records.size());
    InMemorySpanExporter consumerSpans = notifications.getBean(InMemorySpanExporter.class);
    for (ConsumedRecord r : records) {
      String key = new String(r.key(), StandardCharsets.UTF_8) + " " + header(r, "event_type");
      SpanContext request = requestSpans.get(key);
      SpanData consumer = spanOf(consumerSpans, header(r, "id"), "PROCESSED");
      check(
          consumer.getTraceId().equals(request.getTraceId())
              && consumer.getParentSpanId().equals(request.getSpanId()),
          "the consumer span of " + key + " does not continue its request span");
    }
    say(
        "      each of the %d consumer spans is a child of the request span that wrote its event",
        records.size());

    step("publishing an OrderPaid again, byte for byte, as after a relay crash");
    ConsumedRecord again =
        records.stream()
            .filter(r -> "OrderPaid".equals(header(r, "event_type")))
            .findFirst()
            .orElseThrow();
    republish(again);
    spanOf(consumerSpans, header(again, "id"), "DUPLICATE");
    check(sent.count() == placed.size() + paid.size(), "the duplicate changed the notifications");
    check(
        processedRows(notifications, header(again, "id")) == 1,
        "processed_events rows of the redelivered event: "
            + processedRows(notifications, header(again, "id")));
    say("      skipped as a duplicate by its event id; notifications unchanged (%d)", sent.count());

    step(
        "placing an order the notification service refuses: "
            + NotificationServiceApplication.ATTEMPTS
            + " attempts, each rolled back, then the dead-letter topic");
    notifications.getBean(OrderEventsListener.class).refuse("zed");
    String refused = service.place("zed", 100);
    List<ConsumedRecord> dead =
        TopicReader.forTopics(kafka.bootstrapServers(), topic + "-dlt")
            .readUntil(r -> !r.isEmpty(), WAIT);
    check(dead.size() == 1, "dead-lettered: " + dead.size());
    check(
        new String(dead.get(0).key(), StandardCharsets.UTF_8).equals(refused),
        "the dead-lettered record is another order's");
    check(customerOrders.findById(refused).isEmpty(), "the refused order was applied");
    check(sent.findByOrderId(refused).isEmpty(), "the refused order was notified");
    long failed =
        consumerSpans.getFinishedSpanItems().stream()
            .filter(s -> header(dead.get(0), "id").equals(s.getAttributes().get(MESSAGE_ID)))
            .count();
    check(
        failed == NotificationServiceApplication.ATTEMPTS,
        "attempts of the refused order: " + failed);
    check(
        processedRows(notifications, header(dead.get(0), "id")) == 0,
        "the refused order's event has a processed_events row");
    say(
        "      order %s: %d attempts rolled back (no order, no notification, no processed_events"
            + " row), then %s",
        refused.substring(0, 8), failed, dead.get(0).topic());

    showMeters(orders, notifications, placed.size() + paid.size(), 1);
  }

  /**
   * Reads the services' meters (Actuator's registry) and checks them against what the demo did.
   *
   * @param applied the events the notification service applied (every order and payment)
   * @param refused the orders it refused (tried {@value NotificationServiceApplication#ATTEMPTS}
   *     times each)
   */
  private void showMeters(
      ConfigurableApplicationContext orders,
      ConfigurableApplicationContext notifications,
      int applied,
      int refused) {
    step("the services' meters, as Actuator shows them at /actuator/metrics");
    MeterRegistry orderMeters = orders.getBean(MeterRegistry.class);
    MeterRegistry notificationMeters = notifications.getBean(MeterRegistry.class);
    // Every committed order and payment; the rolled-back order is not counted.
    long appended = applied + refused;
    await(
        () -> count(orderMeters, "outbox.writer.events.appended") == appended,
        "outbox.writer.events.appended = " + appended);
    Map<String, Long> expected = new LinkedHashMap<>();
    expected.put("processed", (long) applied);
    expected.put("duplicate", 1L);
    expected.put("stale", 0L);
    expected.put("conflict", 0L);
    expected.put("failed", (long) refused * NotificationServiceApplication.ATTEMPTS);
    Map<String, Long> counted = new LinkedHashMap<>();
    await(
        () -> {
          expected.keySet().forEach(o -> counted.put(o, consumerEvents(notificationMeters, o)));
          return counted.equals(expected);
        },
        "outbox.consumer.events " + expected);
    say("      order service: outbox.writer.events.appended %d", appended);
    say(
        "      notification service: outbox.consumer.events{consumer.group=notifications} %s",
        counted);
  }

  private static long processedRows(ConfigurableApplicationContext service, String eventId) {
    return service
        .getBean(JdbcTemplate.class)
        .queryForObject(
            "SELECT COUNT(*) FROM processed_events WHERE consumer_group = 'notifications'"
                + " AND event_id = ?",
            Long.class,
            eventId);
  }

  private static long count(MeterRegistry registry, String name) {
    return (long)
        Search.in(registry).name(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private static long consumerEvents(MeterRegistry registry, String outcome) {
    FunctionCounter counter =
        registry
            .find("outbox.consumer.events")
            .tag("consumer.group", "notifications")
            .tag("outcome", outcome)
            .functionCounter();
    return counter == null ? -1 : (long) counter.count();
  }

  private static String header(ConsumedRecord r, String name) {
    byte[] value = r.headers().get(name);
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  private static SpanData spanOf(InMemorySpanExporter spans, String eventId, String outcome) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (SpanData s : spans.getFinishedSpanItems()) {
        if (eventId.equals(s.getAttributes().get(MESSAGE_ID))
            && outcome.equals(s.getAttributes().get(OUTCOME))) {
          return s;
        }
      }
      sleep();
    }
    throw new IllegalStateException("no " + outcome + " span of event " + eventId);
  }

  private void republish(ConsumedRecord r) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers(), "acks", "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> copy =
          new ProducerRecord<>(r.topic(), null, r.key(), r.value());
      r.headers().forEach((k, v) -> copy.headers().add(k, v));
      producer.send(copy).get();
    }
  }

  private static SpanContext inSpan(OpenTelemetry telemetry, String name, Runnable work) {
    Span span = telemetry.getTracer("order-service").spanBuilder(name).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      work.run();
    } finally {
      span.end();
    }
    return span.getSpanContext();
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      sleep();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
