package io.outboxrelay.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.OpenTelemetry;
import io.outboxrelay.idempotency.kafka.RecordTracing;
import io.outboxrelay.testsupport.database.SimpleDataSource;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * What the container post-processor does to a listener container, and which containers it refuses
 * at the application's start; no broker or database is reached.
 */
class IdempotentListenerPostProcessorTest {

  private static final DataSource DATA_SOURCE =
      new SimpleDataSource("jdbc:mariadb://127.0.0.1:1/none", "u", "p");

  private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();

  private IdempotentListenerPostProcessor postProcessor() {
    return new IdempotentListenerPostProcessor(
        beans.getBeanProvider(DataSource.class),
        beans.getBeanProvider(PlatformTransactionManager.class),
        beans,
        new IdempotentListenerProperties(),
        new IdempotentListenerCounters());
  }

  private static ConcurrentMessageListenerContainer<Object, Object> container(
      String groupId, Object listener) {
    ContainerProperties properties = new ContainerProperties("t");
    properties.setGroupId(groupId);
    properties.setMessageListener(listener);
    ConcurrentMessageListenerContainer<Object, Object> container =
        new ConcurrentMessageListenerContainer<>(
            new DefaultKafkaConsumerFactory<>(
                Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class)),
            properties);
    container.setBeanName("payments");
    return container;
  }

  private static ConcurrentMessageListenerContainer<Object, Object> recordContainer() {
    return container("billing", (MessageListener<Object, Object>) record -> {});
  }

  private void withDataSourceAndItsTransactionManager() {
    beans.registerSingleton("dataSource", DATA_SOURCE);
    beans.registerSingleton("transactionManager", new DataSourceTransactionManager(DATA_SOURCE));
  }

  @Test
  void wrapsTheContainersListenerInTheAdviceAfterTheAdvicesItHas() {
    withDataSourceAndItsTransactionManager();
    ConcurrentMessageListenerContainer<Object, Object> container = recordContainer();
    org.aopalliance.intercept.MethodInterceptor own = invocation -> invocation.proceed();
    container.getContainerProperties().setAdviceChain(own);

    postProcessor().postProcess(container);

    ContainerProperties properties = container.getContainerProperties();
    assertThat(properties.getAdviceChain()).hasSize(2);
    assertThat(properties.getAdviceChain()[0]).isSameAs(own);
    assertThat(properties.getAdviceChain()[1]).isInstanceOf(IdempotentRecordAdvice.class);
    assertThat(AopUtils.isAopProxy(properties.getMessageListener())).isTrue();
  }

  @Test
  void refusesABatchListener() {
    withDataSourceAndItsTransactionManager();
    ConcurrentMessageListenerContainer<Object, Object> container =
        container("billing", (BatchMessageListener<Object, Object>) records -> {});

    assertThatThrownBy(() -> postProcessor().postProcess(container))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("listener payments")
        .hasMessageContaining("batch listener");
  }

  @Test
  void refusesAListenerWithoutAConsumerGroup() {
    withDataSourceAndItsTransactionManager();
    ConcurrentMessageListenerContainer<Object, Object> container =
        container(null, (MessageListener<Object, Object>) record -> {});

    assertThatThrownBy(() -> postProcessor().postProcess(container))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("group.id");
  }

  @Test
  void refusesAnApplicationWithoutADataSource() {
    assertThatThrownBy(() -> postProcessor().postProcess(recordContainer()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("DataSource");
  }

  @Test
  void refusesAKafkaTransactionManagerWhichBindsNoConnection() {
    beans.registerSingleton("dataSource", DATA_SOURCE);
    DefaultKafkaProducerFactory<String, String> producers =
        new DefaultKafkaProducerFactory<>(
            Map.of("bootstrap.servers", "127.0.0.1:1"),
            new StringSerializer(),
            new StringSerializer());
    producers.setTransactionIdPrefix("tx-");
    beans.registerSingleton("kafkaTransactionManager", new KafkaTransactionManager<>(producers));

    assertThatThrownBy(() -> postProcessor().postProcess(recordContainer()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Kafka transaction manager")
        .hasMessageContaining("outbox.consumer.transaction-manager");
  }

  @Test
  void usesTheTransactionManagerNamedInTheSettings() {
    beans.registerSingleton("dataSource", DATA_SOURCE);
    beans.registerSingleton("one", new DataSourceTransactionManager(DATA_SOURCE));
    beans.registerSingleton("two", new DataSourceTransactionManager(DATA_SOURCE));
    IdempotentListenerProperties properties = new IdempotentListenerProperties();
    IdempotentListenerPostProcessor withoutName =
        new IdempotentListenerPostProcessor(
            beans.getBeanProvider(DataSource.class),
            beans.getBeanProvider(PlatformTransactionManager.class),
            beans,
            properties,
            new IdempotentListenerCounters());

    assertThatThrownBy(() -> withoutName.postProcess(recordContainer()))
        .hasMessageContaining("no single or primary PlatformTransactionManager");
    properties.setTransactionManager("two");
    withoutName.postProcess(recordContainer());
  }

  @Test
  void usesSpringKafkasObservationUnderMicrometerTracingWithoutOpenTelemetryAndTurnsItOn() {
    beans.registerSingleton("tracer", Tracer.NOOP);
    ContainerProperties properties = recordContainer().getContainerProperties();

    RecordTracing tracing = postProcessor().tracing("billing", properties);

    assertThat(tracing).isInstanceOf(ObservationRecordTracing.class);
    assertThat(properties.isObservationEnabled()).isTrue();
  }

  @Test
  void keepsTheOpenTelemetrySpanWhenTheApplicationHasAnOpenTelemetryBeanAndNoObservation() {
    beans.registerSingleton("tracer", Tracer.NOOP);
    beans.registerSingleton("openTelemetry", OpenTelemetry.noop());
    ContainerProperties properties = recordContainer().getContainerProperties();

    RecordTracing tracing = postProcessor().tracing("billing", properties);

    assertThat(tracing)
        .isNotInstanceOf(ObservationRecordTracing.class)
        .isNotSameAs(RecordTracing.NONE);
    assertThat(properties.isObservationEnabled()).isFalse();
  }

  @Test
  void usesTheContainersObservationWhenItIsOnRatherThanASecondSpan() {
    beans.registerSingleton("tracer", Tracer.NOOP);
    beans.registerSingleton("openTelemetry", OpenTelemetry.noop());
    ContainerProperties properties = recordContainer().getContainerProperties();
    properties.setObservationEnabled(true);

    assertThat(postProcessor().tracing("billing", properties))
        .isInstanceOf(ObservationRecordTracing.class);
  }

  @Test
  void makesNoSpanWithTracingOff() {
    beans.registerSingleton("tracer", Tracer.NOOP);
    IdempotentListenerProperties settings = new IdempotentListenerProperties();
    settings.setTracing(false);
    ContainerProperties properties = recordContainer().getContainerProperties();

    RecordTracing tracing =
        new IdempotentListenerPostProcessor(
                beans.getBeanProvider(DataSource.class),
                beans.getBeanProvider(PlatformTransactionManager.class),
                beans,
                settings,
                new IdempotentListenerCounters())
            .tracing("billing", properties);

    assertThat(tracing).isSameAs(RecordTracing.NONE);
    assertThat(properties.isObservationEnabled()).isFalse();
  }
}
