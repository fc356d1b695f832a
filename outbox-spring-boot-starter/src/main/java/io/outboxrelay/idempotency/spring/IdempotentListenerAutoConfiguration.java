package io.outboxrelay.idempotency.spring;

import io.outboxrelay.idempotency.IdempotentProcessor;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Auto-configures {@link IdempotentListener}: an annotation enhancer that gives each annotated
 * {@code @KafkaListener} the container post-processor {@value #CONTAINER_POST_PROCESSOR}, which
 * wraps the listener of its container in the idempotent transaction. Loaded only with spring-kafka
 * on the classpath, and then always on, so that an {@code @IdempotentListener} never runs without
 * its guarantee: without consumer-idempotency the enhancer refuses annotated listeners at start.
 * Nothing is looked up until a container of an annotated listener is created; see {@link
 * IdempotentListenerProperties} for the settings.
 */
@AutoConfiguration
@ConditionalOnClass({KafkaListenerAnnotationBeanPostProcessor.class, ConsumerRecord.class})
public class IdempotentListenerAutoConfiguration {

  /** The bean name of the container post-processor that {@code @IdempotentListener} selects. */
  public static final String CONTAINER_POST_PROCESSOR = "outboxIdempotentListenerPostProcessor";

  /** Creates the auto-configuration; Spring does. */
  public IdempotentListenerAutoConfiguration() {}

  /**
   * The enhancer that spring-kafka's annotation processor applies to every {@code @KafkaListener};
   * static, because that processor (a bean post-processor) looks it up before other beans exist. An
   * infrastructure bean: created that early on purpose, so Spring does not warn that other
   * post-processors (the starter's meters, an application's) do not process it.
   *
   * @return the enhancer
   */
  @Bean
  @org.springframework.context.annotation.Role(
      org.springframework.beans.factory.config.BeanDefinition.ROLE_INFRASTRUCTURE)
  public static AnnotationEnhancer outboxIdempotentListenerEnhancer() {
    return new IdempotentListenerEnhancer(CONTAINER_POST_PROCESSOR);
  }

  /** The part that needs consumer-idempotency (and spring-jdbc, a dependency of the starter). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({IdempotentProcessor.class, DataSourceUtils.class})
  @EnableConfigurationProperties(IdempotentListenerProperties.class)
  public static class ProcessorConfiguration {

    /** Creates the configuration; Spring does. */
    public ProcessorConfiguration() {}

    /**
     * What the listeners did, per consumer group; the starter's meters read it.
     *
     * @return the counters
     */
    @Bean
    public IdempotentListenerCounters outboxIdempotentListenerCounters() {
      return new IdempotentListenerCounters();
    }

    /**
     * The container post-processor of {@code @IdempotentListener} listeners.
     *
     * @param dataSources the application's DataSource (its single or primary one is used)
     * @param transactionManagers the application's transaction managers
     * @param beans where to look up a named transaction manager and an OpenTelemetry bean
     * @param properties {@code outbox.consumer.*}
     * @param counters where the listeners count what they did
     * @return the post-processor
     */
    @Bean(CONTAINER_POST_PROCESSOR)
    public ContainerPostProcessor<?, ?, ?> outboxIdempotentListenerPostProcessor(
        ObjectProvider<DataSource> dataSources,
        ObjectProvider<PlatformTransactionManager> transactionManagers,
        BeanFactory beans,
        IdempotentListenerProperties properties,
        IdempotentListenerCounters counters) {
      return new IdempotentListenerPostProcessor(
          dataSources, transactionManagers, beans, properties, counters);
    }
  }
}
