package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.Outcome;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Runs the processing of one record inside a trace span, or without one: the span {@link
 * IdempotentConsumer} makes per record, for consumers that run their own loop (a framework's
 * listener container) too. Free of OpenTelemetry types: callers depend on this interface only, and
 * the one implementation that uses OpenTelemetry is loaded only after {@link #forConsumer(Object,
 * String, RecordEvents)} has found the OpenTelemetry API on the classpath. Implementations are
 * thread-safe: one may serve the threads of several consumers of a group.
 */
public interface RecordTracing {

  /** No tracing: runs the processing as it is. */
  RecordTracing NONE = (record, processing) -> processing.get();

  /**
   * Runs {@code processing} for {@code record} on the calling thread and returns its outcome; its
   * exceptions pass through unchanged. With OpenTelemetry, inside a CONSUMER span whose parent is
   * the record's W3C {@code traceparent}/{@code tracestate} headers (a record without them starts a
   * trace), with the span and the record's {@code baggage} current while {@code processing} runs;
   * the span records the outcome, or the exception as an error.
   *
   * @param record the record, deserialised or not; not {@code null}
   * @param processing what to run for it; not {@code null}
   * @return what {@code processing} returned
   */
  Outcome process(ConsumerRecord<?, ?> record, Supplier<Outcome> processing);

  /**
   * The tracing of one consumer group: OpenTelemetry when its API is on the classpath, else {@link
   * #NONE}.
   *
   * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, or {@code null} for {@code
   *     GlobalOpenTelemetry.getOrNoop()}, looked up at the first record (typed {@code Object} so
   *     that callers need no OpenTelemetry class)
   * @param consumerGroup the Kafka {@code group.id}, for the span's attributes; not {@code null}
   * @param events how the consumer reads event ids, for the span's attributes; not {@code null}
   * @return the tracing
   * @throws ClassCastException if {@code openTelemetry} is not an {@code OpenTelemetry}
   */
  static RecordTracing forConsumer(
      Object openTelemetry, String consumerGroup, RecordEvents events) {
    if (!openTelemetryOnClasspath()) {
      return NONE;
    }
    return OpenTelemetryRecordTracing.create(openTelemetry, consumerGroup, events);
  }

  /** Whether the classes {@link OpenTelemetryRecordTracing} links against can be loaded. */
  private static boolean openTelemetryOnClasspath() {
    ClassLoader loader = RecordTracing.class.getClassLoader();
    try {
      // opentelemetry-api, and opentelemetry-context, which it depends on.
      Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, loader);
      Class.forName("io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator", false, loader);
      Class.forName("io.opentelemetry.context.propagation.TextMapPropagator", false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
