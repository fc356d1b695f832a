package io.outboxrelay.examples.spring;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A service's OpenTelemetry, its spans kept in memory for the demo to show: both services import
 * it. The writer stores the current span's {@code traceparent} with each event; the idempotent
 * listener finds the {@link OpenTelemetry} bean and continues the trace.
 */
@Configuration(proxyBeanMethods = false)
public class InMemoryTracing {

  /** Creates the configuration; Spring does. */
  public InMemoryTracing() {}

  /**
   * Where the service's spans end up.
   *
   * @return the exporter
   */
  @Bean
  public InMemorySpanExporter spans() {
    return InMemorySpanExporter.create();
  }

  /**
   * The service's OpenTelemetry.
   *
   * @param spans the exporter
   * @return the SDK
   */
  @Bean
  public OpenTelemetry openTelemetry(InMemorySpanExporter spans) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .build();
  }
}
