package io.outboxrelay.writer.spring.metrics;

import io.outboxrelay.writer.spring.Outbox;
import io.outboxrelay.writer.spring.OutboxAutoConfiguration;
import java.util.Objects;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.type.MethodMetadata;

/**
 * Counts the events of the {@link Outbox} that {@link OutboxAutoConfiguration} made, by wrapping it
 * in a {@link MeteredOutbox}. An {@code Outbox} bean of the application's own is left as it is: it
 * may be injected by its own class, which a wrapper would break. Thread-safe once Spring has set
 * its bean factory.
 */
final class OutboxMetricsPostProcessor implements BeanPostProcessor, BeanFactoryAware {

  private final ObjectProvider<WriterMetrics> metrics;
  private ConfigurableListableBeanFactory beanFactory;

  OutboxMetricsPostProcessor(ObjectProvider<WriterMetrics> metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
      this.beanFactory = listable;
    }
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
    if (bean instanceof Outbox outbox && !(bean instanceof MeteredOutbox) && isStarters(beanName)) {
      WriterMetrics writerMetrics = metrics.getIfAvailable();
      if (writerMetrics != null) {
        return new MeteredOutbox(outbox, writerMetrics);
      }
    }
    return bean;
  }

  private boolean isStarters(String beanName) {
    if (beanFactory == null || !beanFactory.containsBeanDefinition(beanName)) {
      return false;
    }
    BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
    MethodMetadata factoryMethod =
        definition instanceof AnnotatedBeanDefinition annotated
            ? annotated.getFactoryMethodMetadata()
            : null;
    return factoryMethod != null
        && OutboxAutoConfiguration.class.getName().equals(factoryMethod.getDeclaringClassName());
  }
}
