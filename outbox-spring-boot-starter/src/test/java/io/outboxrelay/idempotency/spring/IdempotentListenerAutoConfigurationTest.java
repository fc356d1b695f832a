package io.outboxrelay.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.idempotency.IdempotentProcessor;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;
import org.springframework.kafka.config.ContainerPostProcessor;

/** When the auto-configuration loads, and what its annotation enhancer does; no broker needed. */
class IdempotentListenerAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(IdempotentListenerAutoConfiguration.class));

  @Test
  void registersTheEnhancerAndTheContainerPostProcessorWithSpringKafka() {
    runner.run(
        context -> {
          assertThat(context).hasSingleBean(AnnotationEnhancer.class);
          assertThat(
                  context.getBean(
                      IdempotentListenerAutoConfiguration.CONTAINER_POST_PROCESSOR,
                      ContainerPostProcessor.class))
              .isInstanceOf(IdempotentListenerPostProcessor.class);
        });
  }

  @Test
  void loadsNothingWithoutSpringKafka() {
    runner
        .withClassLoader(new FilteredClassLoader("org.springframework.kafka"))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean("outboxIdempotentListenerEnhancer")
                    .doesNotHaveBean(IdempotentListenerProperties.class)
                    .doesNotHaveBean(IdempotentListenerCounters.class)
                    .doesNotHaveBean(IdempotentListenerAutoConfiguration.CONTAINER_POST_PROCESSOR));
  }

  @Test
  void refusesAnnotatedListenersWithoutConsumerIdempotencyInsteadOfIgnoringTheAnnotation()
      throws Exception {
    Method idempotent = Listeners.class.getDeclaredMethod("idempotent", String.class);
    Method plain = Listeners.class.getDeclaredMethod("plain", String.class);
    runner
        .withClassLoader(new FilteredClassLoader(IdempotentProcessor.class))
        .run(
            context -> {
              assertThat(context)
                  .doesNotHaveBean(IdempotentListenerProperties.class)
                  .doesNotHaveBean(IdempotentListenerAutoConfiguration.CONTAINER_POST_PROCESSOR);
              AnnotationEnhancer enhancer = context.getBean(AnnotationEnhancer.class);
              assertThat(enhancer.apply(attributes(plain), plain))
                  .containsEntry(IdempotentListenerEnhancer.ATTRIBUTE, "");
              assertThatThrownBy(() -> enhancer.apply(attributes(idempotent), idempotent))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("io.outboxrelay:consumer-idempotency");
            });
  }

  static class Listeners {
    @KafkaListener(topics = "t")
    @IdempotentListener
    void idempotent(String value) {}

    @KafkaListener(topics = "t")
    void plain(String value) {}

    @KafkaListener(topics = "t", containerPostProcessor = "mine")
    @IdempotentListener
    void withItsOwnPostProcessor(String value) {}
  }

  @IdempotentListener
  static class IdempotentClass {
    @KafkaListener(topics = "t")
    void onEvent(String value) {}
  }

  private static Map<String, Object> attributes(Method method) {
    Map<String, Object> attributes = new HashMap<>();
    attributes.put("topics", new String[] {"t"});
    attributes.put(
        IdempotentListenerEnhancer.ATTRIBUTE,
        method.getAnnotation(KafkaListener.class).containerPostProcessor());
    return attributes;
  }

  @Test
  void givesAnnotatedListenersTheContainerPostProcessorAndLeavesOthersAlone() throws Exception {
    AnnotationEnhancer enhancer =
        IdempotentListenerAutoConfiguration.outboxIdempotentListenerEnhancer();
    Method idempotent = Listeners.class.getDeclaredMethod("idempotent", String.class);
    Method plain = Listeners.class.getDeclaredMethod("plain", String.class);
    Method inClass = IdempotentClass.class.getDeclaredMethod("onEvent", String.class);

    assertThat(enhancer.apply(attributes(idempotent), idempotent))
        .containsEntry(
            IdempotentListenerEnhancer.ATTRIBUTE,
            IdempotentListenerAutoConfiguration.CONTAINER_POST_PROCESSOR)
        .containsKey("topics");
    assertThat(enhancer.apply(attributes(inClass), inClass))
        .containsEntry(
            IdempotentListenerEnhancer.ATTRIBUTE,
            IdempotentListenerAutoConfiguration.CONTAINER_POST_PROCESSOR);
    assertThat(enhancer.apply(attributes(plain), plain))
        .containsEntry(IdempotentListenerEnhancer.ATTRIBUTE, "");
  }

  @Test
  void refusesAListenerThatNamesAnotherContainerPostProcessor() throws Exception {
    Method method = Listeners.class.getDeclaredMethod("withItsOwnPostProcessor", String.class);

    assertThatThrownBy(
            () ->
                IdempotentListenerAutoConfiguration.outboxIdempotentListenerEnhancer()
                    .apply(attributes(method), method))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("containerPostProcessor 'mine'");
  }

  @Test
  void listsEveryKeyInTheConfigurationMetadataAndRegistersTheAutoConfiguration() throws Exception {
    ClassLoader loader = IdempotentListenerAutoConfiguration.class.getClassLoader();
    JsonNode metadata;
    try (InputStream in =
        loader.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      metadata = new ObjectMapper().readTree(in);
    }
    Map<String, JsonNode> properties = new HashMap<>();
    metadata.get("properties").forEach(p -> properties.put(p.get("name").asText(), p));
    properties.keySet().removeIf(name -> !name.startsWith("outbox.consumer."));

    assertThat(properties)
        .containsOnlyKeys(
            "outbox.consumer.processed-events-table",
            "outbox.consumer.aggregate-versions-table",
            "outbox.consumer.id-header",
            "outbox.consumer.version-header",
            "outbox.consumer.conflict-check",
            "outbox.consumer.tracing",
            "outbox.consumer.transaction-manager",
            "outbox.consumer.dialect",
            "outbox.consumer.version-check.enabled",
            "outbox.consumer.version-check.gap-policy");
    assertThat(properties.values())
        .allSatisfy(p -> assertThat(p.path("description").asText()).isNotBlank());
    assertThat(properties.get("outbox.consumer.id-header").get("defaultValue").asText())
        .isEqualTo("id");
    try (InputStream in =
        loader.getResourceAsStream(
            "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
          .contains(IdempotentListenerAutoConfiguration.class.getName());
    }
  }
}
