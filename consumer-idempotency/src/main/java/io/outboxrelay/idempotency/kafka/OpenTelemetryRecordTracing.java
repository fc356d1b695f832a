package io.outboxrelay.idempotency.kafka;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.outboxrelay.idempotency.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A CONSUMER span per processed record, per OpenTelemetry's messaging conventions: its parent is
 * the context of the record's W3C {@code traceparent}/{@code tracestate} headers (a record without
 * them starts a trace), the record's {@code baggage} header is current with it, and both stay
 * current while the processor and the handler run, so the handler's own spans are its children. The
 * only class of this module that uses OpenTelemetry: {@link RecordTracing} loads it only when the
 * API is on the classpath. Thread-safe.
 */
final class OpenTelemetryRecordTracing implements RecordTracing {

  /** The instrumentation scope of the spans. */
  static final String SCOPE = "io.outboxrelay.idempotency";

  /** What the processor did with the record: PROCESSED, DUPLICATE, STALE or CONFLICT. */
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outbox_relay.outcome");

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> PARTITION =
      AttributeKey.stringKey("messaging.destination.partition.id");
  static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
  static final AttributeKey<String> KEY = AttributeKey.stringKey("messaging.kafka.message.key");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> CONSUMER_GROUP =
      AttributeKey.stringKey("messaging.consumer.group.name");
  static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** The relay publishes W3C headers whatever the application's own propagators are. */
  private static final TextMapPropagator W3C =
      TextMapPropagator.composite(
          W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());

  private static final TextMapGetter<ConsumerRecord<?, ?>> HEADERS = new Headers();

  private final OpenTelemetry configured;
  private final String consumerGroup;
  private final RecordEvents events;
  // Looked up at the first record; a race only looks it up twice.
  private volatile Tracer tracer;

  private OpenTelemetryRecordTracing(
      OpenTelemetry configured, String consumerGroup, RecordEvents events) {
    this.configured = configured;
    this.consumerGroup = consumerGroup;
    this.events = events;
  }

  /**
   * @param openTelemetry an {@link OpenTelemetry}, or {@code null} for the global instance, looked
   *     up when the first record is processed
   * @throws ClassCastException if {@code openTelemetry} is something else
   */
  static RecordTracing create(Object openTelemetry, String consumerGroup, RecordEvents events) {
    return new OpenTelemetryRecordTracing((OpenTelemetry) openTelemetry, consumerGroup, events);
  }

  @Override
  public Outcome process(ConsumerRecord<?, ?> record, Supplier<Outcome> processing) {
    Context parent = W3C.extract(Context.root(), record, HEADERS);
    Span span = spanBuilder(record).setParent(parent).startSpan();
    Scope scope = parent.with(span).makeCurrent();
    try {
      Outcome outcome = processing.get();
      span.setAttribute(OUTCOME, outcome.name());
      if (outcome == Outcome.CONFLICT) {
        span.setAttribute(ERROR_TYPE, outcome.name());
        span.setStatus(StatusCode.ERROR, "event id conflict");
      }
      return outcome;
    } catch (RuntimeException | Error e) {
      span.recordException(e);
      span.setAttribute(ERROR_TYPE, DeadLetterPublisher.reported(e).getClass().getName());
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      scope.close();
      span.end();
    }
  }

  /** The span with the attributes known before processing (those samplers may look at). */
  private SpanBuilder spanBuilder(ConsumerRecord<?, ?> record) {
    SpanBuilder builder =
        tracer()
            .spanBuilder("process " + record.topic())
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(SYSTEM, "kafka")
            .setAttribute(DESTINATION, record.topic())
            .setAttribute(PARTITION, Integer.toString(record.partition()))
            .setAttribute(OFFSET, record.offset())
            .setAttribute(CONSUMER_GROUP, consumerGroup)
            .setAttribute(OPERATION_TYPE, "process")
            .setAttribute(OPERATION_NAME, "process");
    String eventId = events.eventIdOrNull(record);
    if (eventId != null) {
      builder.setAttribute(MESSAGE_ID, eventId);
    }
    String key = RecordEvents.utf8OrNull(record.key());
    if (key != null) {
      builder.setAttribute(KEY, key);
    }
    return builder;
  }

  private Tracer tracer() {
    Tracer current = tracer;
    if (current == null) {
      current = (configured != null ? configured : global()).getTracer(SCOPE);
      tracer = current;
    }
    return current;
  }

  /**
   * The instance the application or the Java agent registered, else a no-op one, without
   * registering that no-op instance (which would make the application's own later registration
   * fail). {@code getOrNoop} is there from API 1.57 on; older APIs have {@code get} only.
   */
  private static OpenTelemetry global() {
    try {
      return GlobalOpenTelemetry.getOrNoop();
    } catch (NoSuchMethodError olderApi) {
      return GlobalOpenTelemetry.get();
    }
  }

  /**
   * Reads the W3C headers as text: {@code get} the last of a name, {@code getAll} each in order.
   * {@code keys} is left to the API (deprecated there; the W3C propagators do not call it).
   */
  private static final class Headers implements TextMapGetter<ConsumerRecord<?, ?>> {

    @Override
    public String get(ConsumerRecord<?, ?> record, String key) {
      if (record == null) {
        return null;
      }
      Header header = record.headers().lastHeader(key);
      return header == null ? null : text(header);
    }

    @Override
    public Iterator<String> getAll(ConsumerRecord<?, ?> record, String key) {
      List<String> values = new ArrayList<>();
      if (record != null) {
        for (Header header : record.headers().headers(key)) {
          String value = text(header);
          if (value != null) {
            values.add(value);
          }
        }
      }
      return values.iterator();
    }

    private static String text(Header header) {
      return header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
  }
}
