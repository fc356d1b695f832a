package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.testing.TestDatabase;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer's spans with the OpenTelemetry SDK, against the real broker and MariaDB: the records
 * carry the W3C headers the relay publishes; the spans are read from the SDK's in-memory exporter.
 */
class ConsumerTracingIT {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String PARENT_SPAN_ID = "b7ad6b7169203331";
  private static final String OTHER_TRACE_ID = "5b8efff798038103d269b633813fc60c";
  private static final String OTHER_PARENT_SPAN_ID = "eee19b7ec3c1b174";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private TestDatabase db;
  private KafkaBroker kafka;
  private String topic;
  private String group;
  private IdempotentConsumer consumer;

  @BeforeEach
  void setUp() {
    kafka = LocalStack.shared().kafka();
    db = TestDatabase.mariaDb("idemtrace");
    String unique = Long.toHexString(System.nanoTime());
    topic = "idem-trace-" + unique;
    group = "group-trace-" + unique;
    kafka.createTopic(topic, 1);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (consumer != null) {
      consumer.close();
    }
    executor.shutdownNow();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    sdk.close();
    db.close();
  }

  @Test
  void runsEachRecordInAConsumerSpanUnderItsTraceparentWithTheHandlersSpansAsChildren()
      throws Exception {
    publish(
        event("e-traced", traceparent(TRACE_ID, PARENT_SPAN_ID), "tenant=acme"),
        event("e-plain", null, null),
        event("e-traced", traceparent(TRACE_ID, PARENT_SPAN_ID), "tenant=acme"),
        event("e-flaky", traceparent(OTHER_TRACE_ID, OTHER_PARENT_SPAN_ID), null));
    Map<String, String> baggageSeen = new ConcurrentHashMap<>();
    AtomicBoolean failedOnce = new AtomicBoolean();

    consumer =
        IdempotentConsumer.builder()
            .kafkaProperties(
                Map.of("bootstrap.servers", kafka.bootstrapServers(), "group.id", group))
            .topics(topic)
            .processor(IdempotentProcessor.builder(db.dataSource(), group).build())
            .retryPolicy(new RetryPolicy(3, Duration.ofMillis(50), Duration.ofMillis(50)))
            .openTelemetry(sdk)
            .handler(
                (record, connection) -> {
                  String id = id(record);
                  if (id.equals("e-flaky") && failedOnce.compareAndSet(false, true)) {
                    throw new IllegalStateException("first attempt fails");
                  }
                  baggageSeen.put(id, String.valueOf(Baggage.current().getEntryValue("tenant")));
                  Span work = sdk.getTracer("billing").spanBuilder("apply " + id).startSpan();
                  try {
                    TestDatabase.applyEffect(connection, id, 1);
                  } finally {
                    work.end();
                  }
                })
            .pollTimeout(Duration.ofMillis(100))
            .build();
    executor.submit(consumer::run);

    await().atMost(WAIT).until(() -> consumer.counters().processed() == 3);
    await().atMost(WAIT).until(() -> consumer.counters().duplicates() == 1);
    List<SpanData> spans = exporter.getFinishedSpanItems();

    SpanData traced = consumerSpan(spans, 0);
    assertThat(traced.getName()).isEqualTo("process " + topic);
    assertThat(traced.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(traced.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
    assertThat(traced.getAttributes().asMap())
        .containsEntry(OpenTelemetryRecordTracing.SYSTEM, "kafka")
        .containsEntry(OpenTelemetryRecordTracing.DESTINATION, topic)
        .containsEntry(OpenTelemetryRecordTracing.PARTITION, "0")
        .containsEntry(OpenTelemetryRecordTracing.OFFSET, 0L)
        .containsEntry(OpenTelemetryRecordTracing.KEY, "o-1")
        .containsEntry(OpenTelemetryRecordTracing.MESSAGE_ID, "e-traced")
        .containsEntry(OpenTelemetryRecordTracing.CONSUMER_GROUP, group)
        .containsEntry(OpenTelemetryRecordTracing.OPERATION_TYPE, "process")
        .containsEntry(OpenTelemetryRecordTracing.OPERATION_NAME, "process")
        .containsEntry(OpenTelemetryRecordTracing.OUTCOME, "PROCESSED");
    assertChildOf(handlerSpan(spans, "e-traced"), traced);
    assertThat(baggageSeen).containsEntry("e-traced", "acme");

    SpanData plain = consumerSpan(spans, 1);
    assertThat(plain.getParentSpanContext().isValid()).as("a root span").isFalse();
    assertThat(plain.getTraceId()).isNotIn(TRACE_ID, OTHER_TRACE_ID);
    assertThat(plain.getAttributes().get(OpenTelemetryRecordTracing.OUTCOME))
        .isEqualTo("PROCESSED");
    assertChildOf(handlerSpan(spans, "e-plain"), plain);
    assertThat(baggageSeen).containsEntry("e-plain", "null");

    SpanData duplicate = consumerSpan(spans, 2);
    assertThat(duplicate.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
    assertThat(duplicate.getAttributes().get(OpenTelemetryRecordTracing.OUTCOME))
        .isEqualTo("DUPLICATE");

    List<SpanData> flaky = consumerSpans(spans, 3);
    assertThat(flaky).as("one span per attempt").hasSize(2);
    SpanData failed = flaky.get(0);
    assertThat(failed.getTraceId()).isEqualTo(OTHER_TRACE_ID);
    assertThat(failed.getParentSpanId()).isEqualTo(OTHER_PARENT_SPAN_ID);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getAttributes().get(OpenTelemetryRecordTracing.ERROR_TYPE))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(failed.getEvents()).extracting(EventData::getName).containsExactly("exception");
    SpanData retried = flaky.get(1);
    assertThat(retried.getParentSpanId()).isEqualTo(OTHER_PARENT_SPAN_ID);
    assertThat(retried.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(retried.getAttributes().get(OpenTelemetryRecordTracing.OUTCOME))
        .isEqualTo("PROCESSED");
    assertChildOf(handlerSpan(spans, "e-flaky"), retried);

    assertThat(spans).filteredOn(s -> s.getKind() == SpanKind.INTERNAL).hasSize(3);
    for (String id : List.of("e-traced", "e-plain", "e-flaky")) {
      assertThat(db.effects(id)).as("effects of " + id).isEqualTo(1);
    }
  }

  private static void assertChildOf(SpanData child, SpanData parent) {
    assertThat(child.getTraceId()).isEqualTo(parent.getTraceId());
    assertThat(child.getParentSpanId()).isEqualTo(parent.getSpanId());
  }

  private static List<SpanData> consumerSpans(List<SpanData> spans, long offset) {
    return spans.stream()
        .filter(s -> s.getKind() == SpanKind.CONSUMER)
        .filter(s -> s.getAttributes().get(OpenTelemetryRecordTracing.OFFSET) == offset)
        .toList();
  }

  private static SpanData consumerSpan(List<SpanData> spans, long offset) {
    List<SpanData> matching = consumerSpans(spans, offset);
    assertThat(matching).as("consumer spans of offset " + offset).hasSize(1);
    return matching.get(0);
  }

  private static SpanData handlerSpan(List<SpanData> spans, String eventId) {
    List<SpanData> matching =
        spans.stream().filter(s -> s.getName().equals("apply " + eventId)).toList();
    assertThat(matching).as("handler spans of " + eventId).hasSize(1);
    return matching.get(0);
  }

  private static String traceparent(String traceId, String spanId) {
    return "00-" + traceId + "-" + spanId + "-01";
  }

  private ProducerRecord<byte[], byte[]> event(String id, String traceparent, String baggage) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, bytes("o-1"), bytes("{\"order\":\"o-1\"}"));
    record.headers().add("id", bytes(id));
    if (traceparent != null) {
      record.headers().add("traceparent", bytes(traceparent));
    }
    if (baggage != null) {
      record.headers().add("baggage", bytes(baggage));
    }
    return record;
  }

  @SafeVarargs
  private void publish(ProducerRecord<byte[], byte[]>... records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "acks",
                "all",
                "max.in.flight.requests.per.connection",
                "1"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (ProducerRecord<byte[], byte[]> record : records) {
        producer.send(record).get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static String id(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> r) {
    return new String(r.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
