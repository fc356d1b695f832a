package io.outboxrelay.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import brave.Span.Kind;
import brave.handler.MutableSpan;
import io.outboxrelay.idempotency.spring.MicrometerTracedPaymentApplication.FinishedSpans;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.writer.spring.StarterDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;

/**
 * {@link IdempotentListener} in a Spring Boot application traced with Micrometer Tracing on Brave
 * and without OpenTelemetry, on MariaDB and the Kafka broker: the consumer span is spring-kafka's
 * observation of the record, turned on for the annotated listener's container by the starter; it
 * continues the record's {@code traceparent} and carries the event id and the outcome.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MicrometerTracingIdempotentKafkaListenerIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private StarterDatabase db;
  private KafkaBroker broker;
  private String topic;
  private String group;
  private ConfigurableApplicationContext app;
  private FinishedSpans spans;
  private KafkaProducer<String, String> producer;

  @BeforeAll
  void startApplication() {
    db = StarterDatabase.mariaDb();
    db.runSqlFile("config/mysql/processed-events.sql");
    db.execute(
        "CREATE TABLE accounts (id VARCHAR(255) PRIMARY KEY, balance BIGINT NOT NULL)",
        "CREATE TABLE payments (event_id VARCHAR(255) PRIMARY KEY, account_id VARCHAR(255),"
            + " amount BIGINT NOT NULL)");
    broker = LocalStack.shared().kafka();
    topic = "traced-payments-" + UUID.randomUUID();
    group = "billing-" + topic;
    broker.createTopic(topic, 1);
    broker.createTopic(topic + "-dlt", 1);
    List<String> properties = new ArrayList<>(db.dataSourceProperties());
    properties.add("spring.kafka.bootstrap-servers=" + broker.bootstrapServers());
    properties.add("spring.kafka.consumer.auto-offset-reset=earliest");
    properties.add("management.tracing.sampling.probability=1.0");
    properties.add("test.topic=" + topic);
    properties.add("test.group=" + group);
    app =
        new SpringApplicationBuilder(MicrometerTracedPaymentApplication.class)
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
    spans = app.getBean(FinishedSpans.class);
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

  private void publish(String eventId, String account, String traceparent) throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, account, eventId + ";5;ok");
    record.headers().add("id", eventId.getBytes(StandardCharsets.UTF_8));
    record.headers().add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
    producer.send(record).get();
  }

  private List<MutableSpan> spansOf(String eventId) {
    return spans.spans().stream()
        .filter(s -> eventId.equals(s.tag(ObservationRecordTracing.MESSAGE_ID)))
        .toList();
  }

  private static String hex(int bytes) {
    byte[] random = new byte[bytes];
    ThreadLocalRandom.current().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }

  @Test
  void continuesTheRecordsTraceInSpringKafkasObservationWithTheEventIdAndOutcome()
      throws Exception {
    assertThat(app.getBeanNamesForType(io.opentelemetry.api.OpenTelemetry.class))
        .as("no OpenTelemetry in this application")
        .isEmpty();
    assertThat(
            app.getBean(KafkaListenerEndpointRegistry.class)
                .getListenerContainer("payments")
                .getContainerProperties()
                .isObservationEnabled())
        .as("the starter turned the container's observation on")
        .isTrue();
    String traceId = hex(16);
    String serviceSpanId = hex(8);
    String eventId = "e-" + UUID.randomUUID();
    String account = "acc-" + UUID.randomUUID();

    publish(eventId, account, "00-" + traceId + "-" + serviceSpanId + "-01");
    publish(eventId, account, "00-" + traceId + "-" + serviceSpanId + "-01"); // redelivered

    await("a span per delivery").atMost(WAIT).until(() -> spansOf(eventId).size() == 2);
    List<MutableSpan> delivered = spansOf(eventId);
    assertThat(delivered)
        .extracting(s -> s.tag(ObservationRecordTracing.OUTCOME))
        .containsExactly("PROCESSED", "DUPLICATE");
    assertThat(delivered)
        .allSatisfy(
            s -> {
              assertThat(s.kind()).isEqualTo(Kind.CONSUMER);
              assertThat(s.traceId()).isEqualTo(traceId);
              assertThat(s.parentId()).isEqualTo(serviceSpanId);
            });
    assertThat(db.count("payments WHERE event_id = '" + eventId + "'")).isEqualTo(1);
    assertThat(
            db.count(
                "processed_events WHERE consumer_group = '"
                    + group
                    + "' AND event_id = '"
                    + eventId
                    + "'"))
        .isEqualTo(1);
    assertThat(spans.spans())
        .as("one span per delivery: no second consumer span beside spring-kafka's")
        .filteredOn(s -> s.kind() == Kind.CONSUMER)
        .hasSize(2);
  }
}
