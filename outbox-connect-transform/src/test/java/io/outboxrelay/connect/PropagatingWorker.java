package io.outboxrelay.connect;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import org.apache.kafka.connect.cli.ConnectStandalone;

/**
 * A Connect standalone worker whose OpenTelemetry only propagates W3C trace context, with no SDK:
 * Debezium's EventRouter then extracts the context its {@code tracingspancontext} column holds and
 * injects it again unchanged, as the relay does, instead of a span of its own (whose new span id no
 * second pipeline could reproduce). Run as the worker's main class; its arguments are {@code
 * ConnectStandalone}'s. Public because the {@code java} launcher starts it.
 */
public final class PropagatingWorker {

  private PropagatingWorker() {}

  /**
   * Sets the global OpenTelemetry, then runs the worker.
   *
   * @param args the worker's and the connector's properties files
   * @throws Exception when the worker fails to start
   */
  public static void main(String[] args) throws Exception {
    GlobalOpenTelemetry.set(
        OpenTelemetry.propagating(
            ContextPropagators.create(W3CTraceContextPropagator.getInstance())));
    ConnectStandalone.main(args);
  }
}
