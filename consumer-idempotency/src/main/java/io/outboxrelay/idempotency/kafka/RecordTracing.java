package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.Outcome;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Runs the processing of one record inside a trace span, or without one. Free of OpenTelemetry
 * types: the consumer loop depends on this interface only, and the one implementation that uses
 * OpenTelemetry, {@link OpenTelemetryRecordTracing}, is loaded only after {@link
 * #forConsumer(Object, String, RecordEvents)} has found the OpenTelemetry API on the classpath.
 * Implementations are used by the consumer's thread only.
 */
interface RecordTracing {

  /** No tracing: runs the processing as it is. */
  RecordTracing NONE = (record, processing) -> processing.get();

  /**
   * Runs {@code processing} for {@code record} and returns its outcome; its exceptions pass through
   * unchanged.
   */
  Outcome process(ConsumerRecord<byte[], byte[]> record, Supplier<Outcome> processing);

  /**
   * The tracing of one consumer: OpenTelemetry when its API is on the classpath, else {@link
   * #NONE}.
   *
   * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, or {@code null} for the
   *     global instance (typed {@code Object} so that callers need no OpenTelemetry class)
   * @param consumerGroup the Kafka {@code group.id}
   * @param events how the consumer reads event ids
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
