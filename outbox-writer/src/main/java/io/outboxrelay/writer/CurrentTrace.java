package io.outboxrelay.writer;

import java.util.Map;

/**
 * Where the trace headers of an append come from. The OpenTelemetry implementation is a class of
 * its own, loaded only once {@link #detect()} has found the OpenTelemetry API on the classpath, so
 * the writer runs without it. (The router's {@code TraceContext} defines the W3C format these
 * headers have; the writer's tests check what it writes against it.)
 */
interface CurrentTrace {

  /** No trace headers. */
  CurrentTrace NONE = Map::of;

  /** The OpenTelemetry API's classes the writer uses; all must be present. */
  String[] OPEN_TELEMETRY_CLASSES = {
    "io.opentelemetry.context.Context",
    "io.opentelemetry.api.trace.Span",
    "io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator",
    "io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator"
  };

  /**
   * The W3C headers of the current trace context ({@code traceparent}, and {@code tracestate} and
   * {@code baggage} when present), or an empty map when no valid span is current.
   */
  Map<String, String> headers();

  /** OpenTelemetry's current context when its API is on the classpath, otherwise {@link #NONE}. */
  static CurrentTrace detect() {
    ClassLoader loader = CurrentTrace.class.getClassLoader();
    try {
      for (String name : OPEN_TELEMETRY_CLASSES) {
        Class.forName(name, false, loader);
      }
    } catch (ClassNotFoundException | LinkageError absent) {
      return NONE;
    }
    return OpenTelemetryCurrentTrace.create();
  }
}
