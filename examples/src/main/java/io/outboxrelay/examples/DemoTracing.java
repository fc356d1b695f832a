package io.outboxrelay.examples;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The demo's OpenTelemetry: an SDK whose finished spans stay in memory (a real application exports
 * them to a collector instead), the order service's request spans, and a look-up of the
 * notification service's consumer spans. Thread-safe: the consumer's thread ends spans while the
 * demo's thread reads them.
 */
final class DemoTracing implements AutoCloseable {

  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");

  /** Something the order service does in a request span. */
  interface Request<T, E extends Exception> {
    T run() throws E;
  }

  private final List<SpanData> finished = new ArrayList<>();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(new Kept()))
                  .build())
          .build();

  /** The SDK, for the notification service's consumer. */
  OpenTelemetry openTelemetry() {
    return sdk;
  }

  /**
   * Runs {@code request} in a new SERVER span of the order service, current while it runs, as an
   * HTTP server's instrumentation would; returns its result and the span's context.
   */
  <T, E extends Exception> Traced<T> inRequestSpan(String name, Request<T, E> request) throws E {
    Span span =
        sdk.getTracer("order-service").spanBuilder(name).setSpanKind(SpanKind.SERVER).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return new Traced<>(request.run(), span.getSpanContext());
    } finally {
      span.end();
    }
  }

  /** A request's result and its span. */
  record Traced<T>(T result, SpanContext span) {}

  /**
   * Waits for the first CONSUMER span of the event, ended by the notification service.
   *
   * @return the span, or empty if none ended within the timeout
   */
  synchronized Optional<SpanData> awaitConsumerSpan(String eventId, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<SpanData> span =
          finished.stream()
              .filter(s -> s.getKind() == SpanKind.CONSUMER)
              .filter(s -> eventId.equals(s.getAttributes().get(MESSAGE_ID)))
              .findFirst();
      long left = deadline - System.nanoTime();
      if (span.isPresent() || left <= 0) {
        return span;
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  private synchronized void keep(Collection<SpanData> spans) {
    finished.addAll(spans);
    notifyAll();
  }

  @Override
  public void close() {
    sdk.close();
  }

  /** Keeps every finished span in {@link #finished}. */
  private final class Kept implements SpanExporter {

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      keep(spans);
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
