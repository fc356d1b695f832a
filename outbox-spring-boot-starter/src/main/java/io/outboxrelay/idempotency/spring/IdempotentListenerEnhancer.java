package io.outboxrelay.idempotency.spring;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;

/**
 * Gives the {@code @KafkaListener} of an element annotated {@link IdempotentListener} (itself, or
 * for a method its class) the container post-processor that makes its container idempotent: the
 * attribute {@code containerPostProcessor}, spring-kafka's per-listener hook. Stateless.
 */
final class IdempotentListenerEnhancer implements AnnotationEnhancer {

  static final String ATTRIBUTE = "containerPostProcessor";

  private final String postProcessorBeanName;

  IdempotentListenerEnhancer(String postProcessorBeanName) {
    this.postProcessorBeanName = postProcessorBeanName;
  }

  @Override
  public Map<String, Object> apply(Map<String, Object> attributes, AnnotatedElement element) {
    if (!isIdempotent(element)) {
      return attributes;
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
