package io.outboxrelay.endtoend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.kafka.IdempotentConsumer;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.database.SimpleDataSource;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The whole path with real components, in one relay mode per subclass: an application writes an
 * order and its event through {@link OutboxWriter} in one JDBC transaction on the private MariaDB
 * while its request span is current (OpenTelemetry SDK, in-memory exporter); the relay, run from
 * its distribution as a child process, publishes the row to the Kafka broker; a consumer on
 * consumer-idempotency applies it in its CONSUMER span. One relay, one topic and one consumer per
 * class; each test has aggregates of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractEndToEndIT {

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");

  /** The relay mode under test. */
  protected abstract RelayMode mode();

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .build();
  private final OutboxWriter writer = OutboxWriter.builder().build();
  private final ExecutorService consumerThread = Executors.newSingleThreadExecutor();

  /** What the consumer's handler saw current, by event id: the span it ran in. */
  private final Map<String, SpanContext> handlerSpans = new ConcurrentHashMap<>();

  private Path work;
  private OutboxDatabase orders;
  private String consumerDb;
  private TestTopics topics;
  private RelayProcess relay;
  private IdempotentConsumer consumer;

  @BeforeAll
  void startTheWholePath() throws Exception {
    MariaDbServer mariaDb = LocalStack.shared().mariaDb();
    work = Files.createTempDirectory("e2e-" + mode().name().toLowerCase());
    orders = OutboxDatabase.on(mariaDb);
    orders.admin(
        "CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, customer_id VARCHAR(64) NOT NULL,"
            + " version BIGINT NOT NULL)");
    if (mode() == RelayMode.POLLING) {
      orders.grantPolling();
    }
    topics =
        TestTopics.fresh(
            LocalStack.shared().kafka().bootstrapServers(), "e2e-" + mode().name().toLowerCase());
    RelaySettings settings =
        mode() == RelayMode.CDC
            ? RelaySettings.cdc(orders, topics.bootstrap(), topics.name())
            : RelaySettings.polling(orders, topics.bootstrap(), topics.name());
    relay = RelayProcess.run("relay", work, settings.writeTo(work.resolve("relay.properties")));
    consumer = startConsumer(mariaDb);
  }

  private IdempotentConsumer startConsumer(MariaDbServer mariaDb) {
    consumerDb = mariaDb.createDatabase("e2e_consumer");
    mariaDb.execute(
        consumerDb,
        ProjectFiles.sqlStatements("config/mysql/processed-events.sql").toArray(String[]::new));
    mariaDb.execute(consumerDb, "CREATE TABLE applied (event_id VARCHAR(64) PRIMARY KEY)");
    String user = "cons_" + consumerDb.substring(consumerDb.lastIndexOf('_') + 1);
    String password = "pw-" + UUID.randomUUID();
    mariaDb.createUser(user, password, "SELECT, INSERT, UPDATE, DELETE ON `" + consumerDb + "`.*");
    SimpleDataSource dataSource = new SimpleDataSource(mariaDb.jdbcUrl(consumerDb), user, password);
    String group = "e2e-consumer-" + topics.name();
    IdempotentConsumer c =
        IdempotentConsumer.builder()
            .kafkaProperties(
                Map.of(
                    "bootstrap.servers",
                    topics.bootstrap(),
                    "group.id",
                    group,
                    "metadata.max.age.ms",
                    "500"))
            .topics(topics.prefix() + "order")
            .processor(IdempotentProcessor.builder(dataSource, group).build())
            .openTelemetry(otel)
            .handler(
                (record, connection) -> {
                  String id = header(record.headers().lastHeader("id").value());
                  handlerSpans.put(id, Span.current().getSpanContext());
                  try (PreparedStatement ps =
                      connection.prepareStatement("INSERT INTO applied (event_id) VALUES (?)")) {
                    ps.setString(1, id);
                    ps.executeUpdate();
                  }
                })
            .pollTimeout(Duration.ofMillis(100))
            .build();
    consumerThread.submit(c::run);
    return c;
  }

  @AfterAll
  void stopTheWholePath() throws InterruptedException {
    try {
      if (consumer != null) {
        consumer.close();
      }
      consumerThread.shutdownNow();
      consumerThread.awaitTermination(30, TimeUnit.SECONDS);
      if (relay != null) {
        relay.close();
      }
    } finally {
      otel.close();
      if (consumerDb != null) {
        LocalStack.shared().mariaDb().execute(null, "DROP DATABASE IF EXISTS `" + consumerDb + "`");
      }
      if (orders != null) {
        orders.close();
      }
    }
  }

  @Test
  void theServiceSpanTheKafkaTraceparentAndTheConsumerSpanShareOneTrace() throws Exception {
    String orderId = "order-" + UUID.randomUUID();

    Span request = otel.getTracer("order-service").spanBuilder("POST /orders").startSpan();
    String eventId;
    try (Scope ignored = request.makeCurrent()) {
      eventId = placeOrder(orderId, true);
    } finally {
      request.end();
    }
    SpanContext service = request.getSpanContext();

    ConsumedRecord record = awaitRecord(eventId);
    assertThat(record.header("traceparent"))
        .as("the W3C header the writer stored and the relay published")
        .isEqualTo(
            "00-"
                + service.getTraceId()
                + "-"
                + service.getSpanId()
                + "-"
                + service.getTraceFlags().asHex());
    assertThat(service.getTraceFlags().isSampled()).isTrue();

    SpanData consumed = awaitConsumerSpan(eventId);
    assertThat(consumed.getTraceId()).isEqualTo(service.getTraceId());
    assertThat(consumed.getParentSpanId())
        .as("the consumer span's parent is the service span")
        .isEqualTo(service.getSpanId());
    assertThat(consumed.getName()).isEqualTo("process " + record.topic());
    assertThat(handlerSpans.get(eventId).getSpanId())
        .as("the handler ran in the consumer span")
        .isEqualTo(consumed.getSpanId());
    assertThat(applied(eventId)).isEqualTo(1);
  }

  @Test
  void aRolledBackTransactionPublishesNothingAndACommittedOneArrivesWithKeyHeadersAndVersion()
      throws Exception {
    String rolledBackOrder = "order-" + UUID.randomUUID();
    String committedOrder = "order-" + UUID.randomUUID();

    String rolledBack = placeOrder(rolledBackOrder, false);
    String committed = placeOrder(committedOrder, true);

    assertThat(outboxRows(rolledBack)).as("the rolled-back event's row").isZero();
    assertThat(outboxRows(committed)).isEqualTo(1);
    ConsumedRecord record = awaitRecord(committed);
    assertThat(record.keyAsString()).isEqualTo(committedOrder);
    assertThat(record.valueAsString())
        .isEqualTo("{\"orderId\":\"" + committedOrder + "\",\"customerId\":\"c-ada\"}");
    assertThat(
            record.headers().entrySet().stream()
                .map(h -> h.getKey() + "=" + header(h.getValue()))
                .toList())
        .as("the relay's headers, then the application's, without trace headers: no span")
        .containsExactly(
            "id=" + committed,
            "event_type=OrderCreated",
            "aggregate_type=order",
            "aggregate_id=" + committedOrder,
            "aggregate_version=1",
            "tenant=acme");
    await().atMost(WAIT).until(() -> applied(committed) == 1);

    // The relay had every chance to publish the rolled-back event: it publishes in commit order
    // and the committed one came after it. A quiet topic then shows nothing else is on its way.
    List<ConsumedRecord> all = topics.reader().readAll(Duration.ofSeconds(3));
    assertThat(all)
        .as("nothing of the rolled-back transaction reached Kafka")
        .noneMatch(r -> rolledBack.equals(r.header("id")))
        .noneMatch(r -> rolledBackOrder.equals(r.keyAsString()));
    assertThat(all).filteredOn(r -> committed.equals(r.header("id"))).hasSize(1);
    assertThat(applied(rolledBack)).isZero();
  }

  /**
   * The application's business transaction: the order row and its event through the writer, then a
   * commit, or a rollback (the event's id is returned all the same).
   */
  private String placeOrder(String orderId, boolean commit) throws SQLException {
    try (Connection c = orders.app()) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO orders (id, customer_id, version) VALUES (?, ?, 1)")) {
        ps.setString(1, orderId);
        ps.setString(2, "c-ada");
        ps.executeUpdate();
      }
      String eventId =
          writer.append(
              c,
              NewEvent.builder("order", orderId, "OrderCreated")
                  .payload("{\"orderId\":\"" + orderId + "\",\"customerId\":\"c-ada\"}")
                  .aggregateVersion(1)
                  .header("tenant", "acme")
                  .build());
      if (commit) {
        c.commit();
      } else {
        c.rollback();
      }
      return eventId;
    }
  }

  private ConsumedRecord awaitRecord(String eventId) {
    return topics
        .reader()
        .readUntil(rs -> rs.stream().anyMatch(r -> eventId.equals(r.header("id"))), WAIT)
        .stream()
        .filter(r -> eventId.equals(r.header("id")))
        .findFirst()
        .orElseThrow();
  }

  private SpanData awaitConsumerSpan(String eventId) {
    await().atMost(WAIT).until(() -> consumerSpans(eventId).size() == 1);
    return consumerSpans(eventId).get(0);
  }

  private List<SpanData> consumerSpans(String eventId) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.CONSUMER)
        .filter(s -> eventId.equals(s.getAttributes().get(MESSAGE_ID)))
        .toList();
  }

  private long applied(String eventId) throws SQLException {
    try (Connection c = LocalStack.shared().mariaDb().adminConnection(consumerDb);
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM applied WHERE event_id = ?")) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private long outboxRows(String eventId) {
    Object n =
        orders.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE event_id = '" + eventId + "'");
    return ((Number) n).longValue();
  }

  private static String header(byte[] value) {
    return new String(value, StandardCharsets.UTF_8);
  }
}
