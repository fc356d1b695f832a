package io.outboxrelay.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.outboxrelay.idempotency.spring.PaymentApplication.Call;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import io.outboxrelay.writer.spring.StarterDatabase;
import io.outboxrelay.writer.spring.metrics.ActuatorMetrics;
import io.outboxrelay.writer.spring.metrics.ConsumerMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link IdempotentListener} in a real Spring Boot application on a real database, consuming from
 * the real Kafka broker records shaped as the relay publishes them. A subclass supplies the
 * database and the application: a payments service whose listener credits accounts and stores
 * payments in the listener's transaction ({@link PaymentCalls}), through Spring Data JPA or
 * JdbcTemplate. Each test works on accounts and event ids of its own; an event is known to be
 * handled when a later event of the same partition (the topic has one) was handled, never by
 * waiting a while.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractIdempotentKafkaListenerIT {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> OUTCOME =
      AttributeKey.stringKey("outbox_relay.outcome");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<String> GROUP =
      AttributeKey.stringKey("messaging.consumer.group.name");

  private StarterDatabase db;
  private KafkaBroker broker;
  private String topic;
  private String group;
  private ConfigurableApplicationContext app;
  private PaymentCalls listener;
  private InMemorySpanExporter spans;
  private KafkaProducer<String, String> producer;

  /** A fresh database with the outbox table. */
  protected abstract StarterDatabase newDatabase();

  /** The payments service: a Spring Boot application whose listener bean is a PaymentCalls. */
  protected abstract Class<?> application();

  /** The transaction manager Spring Boot gives that application. */
  protected abstract Class<? extends PlatformTransactionManager> transactionManager();

  @BeforeAll
  void startApplication() {
    db = newDatabase();
    db.runSqlFile("config/" + (db.isMariaDb() ? "mysql" : "postgresql") + "/processed-events.sql");
    db.execute(
        "CREATE TABLE accounts (id VARCHAR(255) PRIMARY KEY, balance BIGINT NOT NULL)",
        "CREATE TABLE payments (event_id VARCHAR(255) PRIMARY KEY, account_id VARCHAR(255),"
            + " amount BIGINT NOT NULL)");
    broker = LocalStack.shared().kafka();
    String name = "payments-" + UUID.randomUUID();
    topic = name;
    group = "billing-" + name;
    broker.createTopic(topic, 1);
    broker.createTopic(topic + "-dlt", 1);
    List<String> properties = new ArrayList<>(db.dataSourceProperties());
    properties.add("spring.kafka.bootstrap-servers=" + broker.bootstrapServers());
    properties.add("spring.kafka.consumer.auto-offset-reset=earliest");
    properties.add("spring.jpa.hibernate.ddl-auto=validate");
    properties.add("outbox.consumer.version-check.enabled=true");
    properties.add("management.endpoints.web.exposure.include=metrics");
    properties.add("test.topic=" + topic);
    properties.add("test.group=" + group);
    app =
        new SpringApplicationBuilder(application())
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
    assertThat(app.getBean(PlatformTransactionManager.class)).isInstanceOf(transactionManager());
    listener = app.getBean(PaymentCalls.class);
    spans = app.getBean(InMemorySpanExporter.class);
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer());
  }

  @AfterAll
  void stopApplication() {
    try {
      if (producer != null) {
        producer.close();
      }
      if (app != null) {
        app.close();
      }
    } finally {
      db.close();
    }
  }

  private static String newId(String label) {
    return label + "-" + UUID.randomUUID();
  }

  /** Publishes a payment event as the relay would: key, value and the relay's headers. */
  private void publish(
      String eventId, String account, long amount, String mode, Long version, String traceparent)
      throws ExecutionException, InterruptedException {
    Map<String, String> headers = new LinkedHashMap<>();
    if (eventId != null) {
      headers.put("id", eventId);
    }
    headers.put("event_type", "PaymentReceived");
    headers.put("aggregate_type", "account");
    headers.put("aggregate_id", account);
    if (version != null) {
      headers.put("aggregate_version", Long.toString(version));
    }
    if (traceparent != null) {
      headers.put("traceparent", traceparent);
    }
    String value = (eventId == null ? "none" : eventId) + ";" + amount + ";" + mode;
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, account, value);
    headers.forEach((k, v) -> record.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
    producer.send(record).get();
  }

  private void publish(String eventId, String account, long amount)
      throws ExecutionException, InterruptedException {
    publish(eventId, account, amount, "ok", null, null);
  }

  /** Waits until the event's id is recorded as processed by the group. */
  private void awaitProcessed(String eventId) {
    await("event " + eventId + " processed").atMost(WAIT).until(() -> idRows(eventId) == 1);
  }

  private long idRows(String eventId) {
    return db.count(
        "processed_events WHERE consumer_group = '" + group + "' AND event_id = '" + eventId + "'");
  }

  private long balance(String account) {
    Object balance = db.query("SELECT balance FROM accounts WHERE id = '" + account + "'");
    return balance == null ? 0 : ((Number) balance).longValue();
  }

  private long payments(String eventId) {
    return db.count("payments WHERE event_id = '" + eventId + "'");
  }

  private List<SpanData> spansOf(String eventId) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> eventId.equals(s.getAttributes().get(MESSAGE_ID)))
        .toList();
  }

  private List<Call> callsOf(String eventId) {
    return listener.calls().stream().filter(c -> c.eventId().equals(eventId)).toList();
  }

  @Test
  void appliesACommittedEventOnceWithTheListenersWrites() throws Exception {
    String account = newId("acc");
    String eventId = newId("e");

    publish(eventId, account, 25);
    awaitProcessed(eventId);

    assertThat(balance(account)).isEqualTo(25);
    assertThat(payments(eventId)).isEqualTo(1);
    assertThat(listener.calls(eventId)).isEqualTo(1);
    assertThat(callsOf(eventId))
        .as("the id was recorded on the listener's connection, in the listener's transaction")
        .containsExactly(new Call(eventId, false, 1));
  }

  @Test
  void skipsARedeliveredEventBeforeTheListenerRunsAndChangesNothing() throws Exception {
    String account = newId("acc");
    String eventId = newId("e");
    String next = newId("e");

    publish(eventId, account, 10);
    publish(eventId, account, 10); // the relay re-published it: same id, new offset
    publish(next, account, 1);
    awaitProcessed(next);

    assertThat(listener.calls(eventId)).isEqualTo(1);
    assertThat(balance(account)).isEqualTo(11);
    assertThat(payments(eventId)).isEqualTo(1);
    assertThat(idRows(eventId)).isEqualTo(1);
    await("the duplicate's span")
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(spansOf(eventId))
                    .extracting(s -> s.getAttributes().get(OUTCOME))
                    .containsExactly("PROCESSED", "DUPLICATE"));
  }

  @Test
  void skipsAnEventWhoseAggregateVersionIsStaleAndRecordsItsId() throws Exception {
    String account = newId("acc");
    String first = newId("e");
    String stale = newId("e");
    String second = newId("e");

    publish(first, account, 100, "ok", 1L, null);
    publish(stale, account, 7, "ok", 1L, null); // another event at a version already applied
    publish(second, account, 1, "ok", 2L, null);
    awaitProcessed(second);

    assertThat(listener.calls(stale)).isZero();
    assertThat(idRows(stale)).as("a stale event's id is recorded").isEqualTo(1);
    assertThat(balance(account)).isEqualTo(101);
    assertThat(
            db.query(
                "SELECT last_version FROM processed_aggregate_versions WHERE consumer_group = '"
                    + group
                    + "' AND aggregate_id = '"
                    + account
                    + "'"))
        .isEqualTo(2L);
  }

  @Test
  void rollsBackEachFailedAttemptWithItsIdRetriesItAndDeadLettersItAfterTheLastAttempt()
      throws Exception {
    String account = newId("acc");
    String failing = newId("e");
    String next = newId("e");

    publish(failing, account, 50, "fail", null, null);
    publish(next, account, 3);
    awaitProcessed(next);

    List<ConsumedRecord> deadLetters =
        TopicReader.forTopics(broker.bootstrapServers(), topic + "-dlt")
            .readUntil(
                records -> records.stream().anyMatch(r -> failing.equals(r.header("id"))), WAIT);
    ConsumedRecord deadLetter =
        deadLetters.stream().filter(r -> failing.equals(r.header("id"))).findFirst().orElseThrow();
    assertThat(deadLetter.keyAsString()).isEqualTo(account);
    assertThat(deadLetter.valueAsString()).isEqualTo(failing + ";50;fail");
    assertThat(deadLetter.header("kafka_dlt-original-topic")).isEqualTo(topic);
    assertThat(deadLetter.header("kafka_dlt-original-consumer-group")).isEqualTo(group);
    assertThat(deadLetter.header("kafka_dlt-exception-message"))
        .contains("payment " + failing + " refused");
    assertThat(deadLetter.header("aggregate_id")).isEqualTo(account);

    assertThat(callsOf(failing))
        .as(
            "every attempt ran with its id recorded in its own transaction, and found nothing of"
                + " the attempts before it")
        .containsExactly(
            new Call(failing, false, 1), new Call(failing, false, 1), new Call(failing, false, 1));
    assertThat(idRows(failing)).isZero();
    assertThat(payments(failing)).isZero();
    assertThat(balance(account)).as("only the next event's credit").isEqualTo(3);
    assertThat(spansOf(failing))
        .hasSize(PaymentApplication.ATTEMPTS)
        .allSatisfy(
            s -> {
              assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
              assertThat(s.getAttributes().get(ERROR_TYPE))
                  .isEqualTo("org.springframework.kafka.listener.ListenerExecutionFailedException");
            });
  }

  @Test
  void deadLettersARecordWithoutAnEventIdAtOnceWithoutCallingTheListener() throws Exception {
    String account = newId("acc");
    String next = newId("e");

    publish(null, account, 5, "ok", null, null);
    publish(next, account, 2);
    awaitProcessed(next);

    List<ConsumedRecord> deadLetters =
        TopicReader.forTopics(broker.bootstrapServers(), topic + "-dlt")
            .readUntil(
                records -> records.stream().anyMatch(r -> account.equals(r.keyAsString())), WAIT);
    ConsumedRecord deadLetter =
        deadLetters.stream().filter(r -> account.equals(r.keyAsString())).findFirst().orElseThrow();
    assertThat(deadLetter.header("kafka_dlt-exception-cause-fqcn"))
        .isEqualTo("io.outboxrelay.idempotency.kafka.PoisonRecordException");
    assertThat(listener.calls("none")).isZero();
    assertThat(balance(account)).isEqualTo(2);
  }

  /** The group's {@code outbox.consumer.events} counts by outcome, from Actuator's endpoint. */
  private Map<String, Double> consumerEvents() throws Exception {
    Map<String, Double> counts = new LinkedHashMap<>();
    for (String outcome : List.of("processed", "duplicate", "stale", "conflict", "failed")) {
      counts.put(
          outcome,
          ActuatorMetrics.count(
              app, ConsumerMetrics.EVENTS, "consumer.group:" + group, "outcome:" + outcome));
    }
    return counts;
  }

  @Test
  void countsEachDeliveryByOutcomeUnderActuatorOnceItsTransactionEnded() throws Exception {
    String account = newId("acc");
    String applied = newId("e");
    String stale = newId("e");
    String failing = newId("e");
    String last = newId("e");
    Map<String, Double> before = consumerEvents();

    publish(applied, account, 1, "ok", 1L, null);
    publish(applied, account, 1, "ok", 1L, null); // redelivered
    publish(stale, account, 1, "ok", 1L, null); // another event at a version already applied
    publish(failing, account, 1, "fail", 2L, null); // three attempts, then the dead-letter topic
    publish(last, account, 1, "ok", 2L, null);
    awaitProcessed(last);

    Map<String, Double> expected = new LinkedHashMap<>(before);
    expected.merge("processed", 2.0, Double::sum);
    expected.merge("duplicate", 1.0, Double::sum);
    expected.merge("stale", 1.0, Double::sum);
    expected.merge("failed", (double) PaymentApplication.ATTEMPTS, Double::sum);
    // Counted just after the commit that awaitProcessed saw.
    await("the counts at the metrics endpoint")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(consumerEvents()).isEqualTo(expected));
    assertThat(balance(account)).isEqualTo(2);
  }

  @Test
  void processesEachRecordInAConsumerSpanWhoseParentIsTheServiceSpanOfItsTraceparent()
      throws Exception {
    String account = newId("acc");
    String eventId = newId("e");
    OpenTelemetry openTelemetry = app.getBean(OpenTelemetry.class);
    Span service =
        openTelemetry.getTracer("payments-test").spanBuilder("POST /payments").startSpan();
    Map<String, String> carrier = new LinkedHashMap<>();
    W3CTraceContextPropagator.getInstance().inject(Context.root().with(service), carrier, Map::put);
    service.end();

    publish(eventId, account, 9, "ok", null, carrier.get("traceparent"));
    awaitProcessed(eventId);

    await("the consumer span").atMost(WAIT).until(() -> !spansOf(eventId).isEmpty());
    SpanData consumer = spansOf(eventId).get(0);
    assertThat(consumer.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(consumer.getName()).isEqualTo("process " + topic);
    assertThat(consumer.getTraceId()).isEqualTo(service.getSpanContext().getTraceId());
    assertThat(consumer.getParentSpanId()).isEqualTo(service.getSpanContext().getSpanId());
    assertThat(consumer.getAttributes().get(OUTCOME)).isEqualTo("PROCESSED");
    assertThat(consumer.getAttributes().get(GROUP)).isEqualTo(group);
  }
}
