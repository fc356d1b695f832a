package io.outboxrelay.writer;

import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The W3C trace context of OpenTelemetry's {@link Context#current()}, by the API's own W3C
 * propagators. The only class of the writer that refers to OpenTelemetry: {@link
 * CurrentTrace#detect()} loads it after checking that the API is there.
 */
final class OpenTelemetryCurrentTrace implements CurrentTrace {

  private static final TextMapSetter<Map<String, String>> PUT =
      (carrier, name, value) -> {
        if (carrier != null) {
          carrier.put(name, value);
        }
      };

  private OpenTelemetryCurrentTrace() {}

  /** Declared as the interface, so that callers need not load this class to verify the call. */
  static CurrentTrace create() {
    return new OpenTelemetryCurrentTrace();
  }

  @Override
  public Map<String, String> headers() {
    Context context = Context.current();
    if (!Span.fromContext(context).getSpanContext().isValid()) {
      return Map.of();
    }
    Map<String, String> headers = new LinkedHashMap<>(4);
    W3CTraceContextPropagator.getInstance().inject(context, headers, PUT);
    W3CBaggagePropagator.getInstance().inject(context, headers, PUT);
    return headers;
  }
}
