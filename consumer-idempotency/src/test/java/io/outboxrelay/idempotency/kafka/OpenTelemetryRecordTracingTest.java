package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.outboxrelay.idempotency.EventProcessingException;
import io.outboxrelay.idempotency.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The span of one record, without a broker: headers in, span data out (the SDK's exporter). */
class OpenTelemetryRecordTracingTest {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT_SPAN_ID = "00f067aa0ba902b7";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PARENT_SPAN_ID + "-01";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private final RecordEvents events = new RecordEvents("id", "aggregate_version");

  @AfterEach
  void tearDown() {
    sdk.close();
  }

  private RecordTracing tracing(OpenTelemetry openTelemetry) {
    return RecordTracing.forConsumer(openTelemetry, "billing", events);
  }

  private static ConsumerRecord<byte[], byte[]> record(String key, String... headers) {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            "outbox.event.order",
            2,
            41L,
            key == null ? null : key.getBytes(StandardCharsets.UTF_8),
            "{}".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < headers.length; i += 2) {
      record.headers().add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return record;
  }

  private SpanData onlySpan() {
    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).hasSize(1);
    return spans.get(0);
  }

  @Test
  void usesOpenTelemetryWhenTheApiIsOnTheClasspath() {
    assertThat(tracing(sdk)).isInstanceOf(OpenTelemetryRecordTracing.class);
    assertThat(tracing(null)).isInstanceOf(OpenTelemetryRecordTracing.class);
  }

  @Test
  void processesTheRecordInAConsumerSpanWhoseParentIsTheTraceparentHeader() {
    AtomicReference<SpanContext> current = new AtomicReference<>();
    AtomicReference<String> baggage = new AtomicReference<>();

    Outcome outcome =
        tracing(sdk)
            .process(
                record(
                    "o-7",
                    "id",
                    "e-1",
                    "traceparent",
                    TRACEPARENT,
                    "tracestate",
                    "vendor=abc",
                    "baggage",
                    "tenant=acme"),
                () -> {
                  current.set(Span.current().getSpanContext());
                  baggage.set(Baggage.current().getEntryValue("tenant"));
                  return Outcome.PROCESSED;
                });

    assertThat(outcome).isEqualTo(Outcome.PROCESSED);
    SpanData span = onlySpan();
    assertThat(span.getName()).isEqualTo("process outbox.event.order");
    assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(span.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
    assertThat(span.getParentSpanContext().isRemote()).isTrue();
    assertThat(span.getSpanContext().getTraceState().get("vendor")).isEqualTo("abc");
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(span.getAttributes().asMap())
        .containsEntry(OpenTelemetryRecordTracing.SYSTEM, "kafka")
        .containsEntry(OpenTelemetryRecordTracing.DESTINATION, "outbox.event.order")
        .containsEntry(OpenTelemetryRecordTracing.PARTITION, "2")
        .containsEntry(OpenTelemetryRecordTracing.OFFSET, 41L)
        .containsEntry(OpenTelemetryRecordTracing.KEY, "o-7")
        .containsEntry(OpenTelemetryRecordTracing.MESSAGE_ID, "e-1")
        .containsEntry(OpenTelemetryRecordTracing.CONSUMER_GROUP, "billing")
        .containsEntry(OpenTelemetryRecordTracing.OPERATION_TYPE, "process")
        .containsEntry(OpenTelemetryRecordTracing.OPERATION_NAME, "process")
        .containsEntry(OpenTelemetryRecordTracing.OUTCOME, "PROCESSED")
        .doesNotContainKey(OpenTelemetryRecordTracing.ERROR_TYPE);
    assertThat(current.get()).as("the span is current").isEqualTo(span.getSpanContext());
    assertThat(baggage.get()).as("the baggage is current").isEqualTo("acme");
    assertThat(Span.current().getSpanContext().isValid()).as("restored afterwards").isFalse();
    assertThat(Baggage.current().isEmpty()).isTrue();
  }

  @Test
  void makesTheEntriesOfEveryBaggageHeaderCurrent() {
    AtomicReference<Baggage> baggage = new AtomicReference<>();

    tracing(sdk)
        .process(
            record("o-1", "id", "e-1", "baggage", "tenant=acme", "baggage", "region=eu"),
            () -> {
              baggage.set(Baggage.current());
              return Outcome.PROCESSED;
            });

    assertThat(baggage.get().getEntryValue("tenant")).isEqualTo("acme");
    assertThat(baggage.get().getEntryValue("region")).isEqualTo("eu");
  }

  @Test
  void startsATraceForARecordWithoutTraceHeadersOrWithAMalformedOne() {
    tracing(sdk).process(record(null, "id", "e-1"), () -> Outcome.DUPLICATE);
    tracing(sdk)
        .process(record(null, "id", "e-2", "traceparent", "00-xyz-1-01"), () -> Outcome.STALE);

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).hasSize(2);
    for (SpanData span : spans) {
      assertThat(span.getParentSpanContext().isValid()).isFalse();
      assertThat(span.getTraceId()).isNotEqualTo(TRACE_ID);
      assertThat(span.getAttributes().get(OpenTelemetryRecordTracing.KEY)).isNull();
    }
    assertThat(spans.get(0).getTraceId()).isNotEqualTo(spans.get(1).getTraceId());
    assertThat(spans.get(0).getAttributes().get(OpenTelemetryRecordTracing.OUTCOME))
        .isEqualTo("DUPLICATE");
    assertThat(spans.get(1).getAttributes().get(OpenTelemetryRecordTracing.OUTCOME))
        .isEqualTo("STALE");
  }

  @Test
  void recordsAFailureAndRethrowsItUnchanged() {
    IOException cause = new IOException("remote service unreachable");
    EventProcessingException failure = new EventProcessingException("e-1", "failed", cause);

    assertThatThrownBy(
            () ->
                tracing(sdk)
                    .process(
                        record("o-1", "id", "e-1", "traceparent", TRACEPARENT),
                        () -> {
                          throw failure;
                        }))
        .isSameAs(failure);

    SpanData span = onlySpan();
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getAttributes().get(OpenTelemetryRecordTracing.ERROR_TYPE))
        .as("the wrapped failure's type")
        .isEqualTo(IOException.class.getName());
    assertThat(span.getAttributes().get(OpenTelemetryRecordTracing.OUTCOME)).isNull();
    assertThat(span.getEvents()).extracting(EventData::getName).containsExactly("exception");
    assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
  }

  @Test
  void marksAConflictAsAnError() {
    tracing(sdk).process(record("o-1", "id", "e-1"), () -> Outcome.CONFLICT);

    SpanData span = onlySpan();
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getAttributes().get(OpenTelemetryRecordTracing.OUTCOME)).isEqualTo("CONFLICT");
    assertThat(span.getAttributes().get(OpenTelemetryRecordTracing.ERROR_TYPE))
        .isEqualTo("CONFLICT");
  }

  @Test
  void omitsTheMessageIdOfARecordWithoutOne() {
    assertThatThrownBy(
            () ->
                tracing(sdk)
                    .process(
                        record("o-1"),
                        () -> {
                          throw new PoisonRecordException("no id");
                        }))
        .isInstanceOf(PoisonRecordException.class);

    assertThat(onlySpan().getAttributes().get(OpenTelemetryRecordTracing.MESSAGE_ID)).isNull();
  }

  @Test
  void aNoopInstanceRecordsNothingButStillMakesTheHeadersContextCurrent() {
    AtomicReference<SpanContext> current = new AtomicReference<>();

    tracing(OpenTelemetry.noop())
        .process(
            record("o-1", "id", "e-1", "traceparent", TRACEPARENT),
            () -> {
              current.set(Span.current().getSpanContext());
              return Outcome.PROCESSED;
            });

    assertThat(current.get().getTraceId()).isEqualTo(TRACE_ID);
    assertThat(current.get().getSpanId()).isEqualTo(PARENT_SPAN_ID);
    assertThat(exporter.getFinishedSpanItems()).isEmpty();
    assertThat(Context.current()).isSameAs(Context.root());
  }
}
