package io.outboxrelay.idempotency.spring;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;
import org.springframework.util.ClassUtils;

/**
 * Gives the {@code @KafkaListener} of an element annotated {@link IdempotentListener} (itself, or
 * for a method its class) the container post-processor that makes its container idempotent: the
 * attribute {@code containerPostProcessor}, spring-kafka's per-listener hook; refuses it when
 * consumer-idempotency is missing from the application's class loader. Thread-safe.
 */
final class IdempotentListenerEnhancer implements AnnotationEnhancer, BeanClassLoaderAware {

  static final String ATTRIBUTE = "containerPostProcessor";

  /** Named, not referred to: this class loads without consumer-idempotency. */
  private static final String PROCESSOR = "io.outboxrelay.idempotency.IdempotentProcessor";

  private final String postProcessorBeanName;

  private volatile ClassLoader classLoader = IdempotentListenerEnhancer.class.getClassLoader();

  IdempotentListenerEnhancer(String postProcessorBeanName) {
    this.postProcessorBeanName = postProcessorBeanName;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public Map<String, Object> apply(Map<String, Object> attributes, AnnotatedElement element) {
    if (!isIdempotent(element)) {
      return attributes;
    }
    if (!ClassUtils.isPresent(PROCESSOR, classLoader)) {
      throw new IllegalStateException(
          "@IdempotentListener on "
              + element
              + " needs consumer-idempotency, which records the processed events: add the"
              + " dependency io.outboxrelay:consumer-idempotency");
    }
    Object named = attributes.get(ATTRIBUTE);
    if (named instanceof String name && !name.isEmpty() && !name.equals(postProcessorBeanName)) {
      throw new IllegalStateException(
          "@IdempotentListener on "
              + element
              + " cannot take effect: its @KafkaListener already names containerPostProcessor '"
              + name
              + "', and a listener has only one. Remove one of them, or apply your"
              + " post-processing in a ContainerCustomizer of the listener container factory");
    }
    Map<String, Object> enhanced = new LinkedHashMap<>(attributes);
    enhanced.put(ATTRIBUTE, postProcessorBeanName);
    return enhanced;
  }

  private static boolean isIdempotent(AnnotatedElement element) {
    if (AnnotatedElementUtils.hasAnnotation(element, IdempotentListener.class)) {
      return true;
    }
    return element instanceof Method method
        && AnnotatedElementUtils.hasAnnotation(
            method.getDeclaringClass(), IdempotentListener.class);
  }
}
