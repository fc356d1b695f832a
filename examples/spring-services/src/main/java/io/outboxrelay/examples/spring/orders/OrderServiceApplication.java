package io.outboxrelay.examples.spring.orders;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * The order service: {@link OrderService} writes an order with Spring Data JPA and its event with
 * the starter's {@code Outbox} bean, in one Spring-managed transaction. Its own table comes from
 * its Flyway ({@code db/orders}), the outbox table from the starter's shipped migrations ({@code
 * outbox.migrations.enabled=true}). Spans of its requests go to an in-memory exporter, for the demo
 * to show; the writer stores the current span's {@code traceparent} with each event.
 */
@SpringBootApplication
@EnableJpaRepositories
public class OrderServiceApplication {

  /**
   * Where the service's spans end up.
   *
   * @return the exporter
   */
  @Bean
  public InMemorySpanExporter orderSpans() {
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
