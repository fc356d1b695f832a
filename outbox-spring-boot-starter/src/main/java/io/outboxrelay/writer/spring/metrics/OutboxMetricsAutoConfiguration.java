package io.outboxrelay.writer.spring.metrics;

import io.outboxrelay.idempotency.spring.IdempotentListenerCounters;
import io.outboxrelay.writer.spring.OutboxAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Meters of the outbox writer ({@link WriterMetrics}) and of consumer-idempotency's processors and
 * {@code @IdempotentListener} listeners ({@link ConsumerMetrics}), when Micrometer is on the
 * classpath. Both are {@code MeterBinder}s: Spring Boot's Actuator binds them to its registry once
 * every singleton exists (without a registry, nothing is counted). Each backs off when the
 * application defines its own bean of that type; {@code management.metrics.enable.outbox=false}
 * turns the meters off.
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
public class OutboxMetricsAutoConfiguration {

  /** Creates the auto-configuration; Spring does. */
  public OutboxMetricsAutoConfiguration() {}

  /**
   * The writer's meters.
   *
   * @return the binder
   */
  @Bean
  @ConditionalOnMissingBean
  public WriterMetrics outboxWriterMetrics() {
    return new WriterMetrics();
  }

  /**
   * Wraps the starter's {@code Outbox} so that its appends are counted.
   *
   * @param metrics the writer's meters
   * @return the post-processor
   */
  @Bean
  static OutboxMetricsPostProcessor outboxMetricsPostProcessor(
      ObjectProvider<WriterMetrics> metrics) {
    return new OutboxMetricsPostProcessor(metrics);
  }

  /** consumer-idempotency's meters, where it is on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.outboxrelay.idempotency.IdempotentProcessor")
  static class Consumer {

    @Bean
    @ConditionalOnMissingBean
    ConsumerMetrics outboxConsumerMetrics(
        ObjectProvider<io.outboxrelay.idempotency.IdempotentProcessor> processors,
        ObjectProvider<IdempotentListenerCounters> listeners) {
      return new ConsumerMetrics(processors, listeners.getIfAvailable());
    }
  }
}
