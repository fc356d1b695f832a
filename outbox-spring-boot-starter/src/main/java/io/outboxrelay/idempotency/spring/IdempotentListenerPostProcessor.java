package io.outboxrelay.idempotency.spring;

import io.micrometer.observation.ObservationRegistry;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.kafka.RecordEvents;
import io.outboxrelay.idempotency.kafka.RecordTracing;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.aopalliance.aop.Advice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.adapter.AsyncRepliesAware;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;

/**
 * Makes the container of an {@link IdempotentListener} idempotent: adds an {@link
 * IdempotentRecordAdvice} for the container's consumer group to the end of its advice chain, which
 * spring-kafka wraps around the message listener. Called by spring-kafka once per container, when
 * the container is created (after every singleton exists): the data source, the transaction manager
 * and the OpenTelemetry instance are looked up then, and a listener that cannot work (a batch or
 * async listener, no group id, no single data source or transaction manager) fails the
 * application's start with one line saying what to change. Thread-safe.
 */
final class IdempotentListenerPostProcessor
    implements ContainerPostProcessor<
        Object, Object, AbstractMessageListenerContainer<Object, Object>> {

  private static final Logger LOG = LoggerFactory.getLogger(IdempotentListenerPostProcessor.class);
  private static final String OPEN_TELEMETRY = "io.opentelemetry.api.OpenTelemetry";
  private static final String MICROMETER_TRACER = "io.micrometer.tracing.Tracer";

  private final ObjectProvider<DataSource> dataSources;
  private final ObjectProvider<PlatformTransactionManager> transactionManagers;
  private final BeanFactory beans;
  private final IdempotentListenerProperties properties;
  private final IdempotentListenerCounters counters;

  /** One processor per consumer group, shared by its listeners. */
  private final Map<String, IdempotentProcessor> processors = new ConcurrentHashMap<>();

  IdempotentListenerPostProcessor(
      ObjectProvider<DataSource> dataSources,
      ObjectProvider<PlatformTransactionManager> transactionManagers,
      BeanFactory beans,
      IdempotentListenerProperties properties,
      IdempotentListenerCounters counters) {
    this.dataSources = dataSources;
    this.transactionManagers = transactionManagers;
    this.beans = beans;
    this.properties = properties;
    this.counters = counters;
  }

  @Override
  public void postProcess(AbstractMessageListenerContainer<Object, Object> container) {
    String listener = container.getListenerId();
    ContainerProperties containerProperties = container.getContainerProperties();
    Object messageListener = containerProperties.getMessageListener();
    if (messageListener instanceof BatchMessageListener<?, ?>) {
      throw refused(listener, "is a batch listener; only record listeners are supported");
    }
    if (messageListener instanceof AsyncRepliesAware async && async.isAsyncReplies()) {
      throw refused(
          listener,
          "returns an asynchronous result (CompletableFuture, Mono), which would outlive its"
              + " transaction; return a plain value or void");
    }
    String group = container.getGroupId();
    if (group == null || group.isBlank()) {
      throw refused(
          listener,
          "has no consumer group (group.id), under which its events are recorded as processed; set"
              + " groupId or spring.kafka.consumer.group-id");
    }
    DataSource dataSource = dataSource(listener);
    TransactionTemplate transactions = transactions(listener);
    RecordTracing tracing = tracing(group, containerProperties);
    IdempotentRecordAdvice advice =
        new IdempotentRecordAdvice(
            processors.computeIfAbsent(group, g -> processor(dataSource, g)),
            counters.group(group),
            events(),
            tracing,
            transactions,
            dataSource);
    Advice[] chain = containerProperties.getAdviceChain();
    Advice[] extended = Arrays.copyOf(chain, chain.length + 1);
    extended[chain.length] = advice;
    containerProperties.setAdviceChain(extended);
    LOG.info(
        "[idempotent-listener {}] applies each event once for consumer group {} (table {}, version"
            + " check {}, conflict check {}, consumer span {})",
        listener,
        group,
        properties.getProcessedEventsTable(),
        properties.getVersionCheck().isEnabled()
            ? "on, gaps: " + properties.getVersionCheck().getGapPolicy()
            : "off",
        properties.isConflictCheck() ? "on" : "off",
        tracing instanceof ObservationRecordTracing
            ? "spring-kafka's observation (Micrometer Tracing)"
            : tracing == RecordTracing.NONE ? "none" : "OpenTelemetry");
  }

  private IdempotentProcessor processor(DataSource dataSource, String group) {
    IdempotentProcessor.Builder builder =
        IdempotentProcessor.builder(dataSource, group)
            .processedEventsTable(properties.getProcessedEventsTable())
            .aggregateVersionsTable(properties.getAggregateVersionsTable());
    if (properties.getDialect() != null) {
      builder.dialect(properties.getDialect());
    }
    if (properties.getVersionCheck().isEnabled()) {
      builder.versionCheck(properties.getVersionCheck().getGapPolicy());
    }
    if (properties.isConflictCheck()) {
      builder.conflictCheck();
    }
    return builder.build();
  }

  private RecordEvents events() {
    String versionHeader = properties.getVersionHeader();
    return new RecordEvents(
        properties.getIdHeader(),
        versionHeader == null || versionHeader.isEmpty() ? null : versionHeader);
  }

  /**
   * Where the consumer span comes from; none with {@code outbox.consumer.tracing=false}.
   *
   * <ul>
   *   <li>Micrometer Tracing (a {@code io.micrometer.tracing.Tracer} bean) when the application has
   *       no OpenTelemetry bean (Brave) or when the container observes its records already ({@code
   *       spring.kafka.listener.observation-enabled}): spring-kafka's observation of the record is
   *       the span, turned on for this container if it is off; a span of our own beside it would be
   *       a second span of the same delivery.
   *   <li>Otherwise OpenTelemetry: the application's OpenTelemetry bean if it has exactly one, else
   *       the global instance; none without the API on the classpath.
   * </ul>
   */
  RecordTracing tracing(String group, ContainerProperties containerProperties) {
    if (!properties.isTracing()) {
      return RecordTracing.NONE;
    }
    ClassLoader loader = IdempotentListenerPostProcessor.class.getClassLoader();
    Object openTelemetry =
        ClassUtils.isPresent(OPEN_TELEMETRY, loader)
            ? beans
                .getBeanProvider(ClassUtils.resolveClassName(OPEN_TELEMETRY, loader))
                .getIfUnique()
            : null;
    if (micrometerTracing(loader)
        && (openTelemetry == null || containerProperties.isObservationEnabled())) {
      containerProperties.setObservationEnabled(true);
      return new ObservationRecordTracing(
          beans
              .getBeanProvider(ObservationRegistry.class)
              .getIfUnique(() -> ObservationRegistry.NOOP),
          events());
    }
    if (!ClassUtils.isPresent(OPEN_TELEMETRY, loader)) {
      return RecordTracing.NONE;
    }
    return RecordTracing.forConsumer(openTelemetry, group, events());
  }

  /** Whether the application traces with Micrometer Tracing: it has a Tracer bean. */
  private boolean micrometerTracing(ClassLoader loader) {
    return ClassUtils.isPresent(MICROMETER_TRACER, loader)
        && beans
                .getBeanProvider(ClassUtils.resolveClassName(MICROMETER_TRACER, loader))
                .getIfUnique()
            != null;
  }

  private DataSource dataSource(String listener) {
    DataSource dataSource = dataSources.getIfUnique();
    if (dataSource == null) {
      throw refused(
          listener,
          "needs the application's DataSource, where processed_events lives, but there is no"
              + " single or primary DataSource bean");
    }
    return dataSource;
  }

  private TransactionTemplate transactions(String listener) {
    String name = properties.getTransactionManager();
    PlatformTransactionManager manager =
        name == null || name.isBlank()
            ? transactionManagers.getIfUnique()
            : beans.getBean(name, PlatformTransactionManager.class);
    if (manager == null) {
      throw refused(
          listener,
          "needs a transaction manager of the DataSource, but there is no single or primary"
              + " PlatformTransactionManager bean; name one with outbox.consumer.transaction-manager");
    }
    if (manager instanceof KafkaAwareTransactionManager<?, ?>) {
      // The common mistake once spring.kafka.producer.transaction-id-prefix is set: caught here
      // rather than by every record failing.
      throw refused(
          listener,
          "would run on a Kafka transaction manager, which binds no connection of the DataSource;"
              + " name a transaction manager of the DataSource with"
              + " outbox.consumer.transaction-manager");
    }
    TransactionTemplate template = new TransactionTemplate(manager);
    template.setName("idempotent-listener " + listener);
    return template;
  }

  private static IllegalStateException refused(String listener, String why) {
    return new IllegalStateException(
        "@IdempotentListener listener " + listener + " cannot be idempotent: it " + why);
  }
}
