package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class TransformConfigTest {

  @Test
  void defaultsToTheRelaysTopicTemplateAndFailingAtPoison() {
    TransformConfig config = TransformConfig.parse(Map.of());
    assertThat(config.topicTemplate()).hasToString("outbox.event.${aggregate_type}");
    assertThat(config.poisonAction()).isEqualTo(TransformConfig.PoisonAction.FAIL);
  }

  @Test
  void acceptsTheKeysConnectPutsUnderTheTransformsPrefix() {
    TransformConfig config =
        TransformConfig.parse(
            Map.of(
                "type", OutboxRouterTransform.class.getName(),
                "predicate", "isOutbox",
                "negate", "false",
                "router.topic.template", "${event_type}",
                "poison.action", "skip"));
    assertThat(config.poisonAction()).isEqualTo(TransformConfig.PoisonAction.SKIP);
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(
            () ->
                TransformConfig.parse(
                    Map.of(
                        "router.topic.template", "outbox.${aggregate}",
                        "poison.action", "ignore",
                        "topic.template", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("3 problems")
        .hasMessageContaining("unknown placeholder ${aggregate}")
        .hasMessageContaining("'ignore' is not one of fail, skip")
        .hasMessageContaining("unknown setting 'topic.template'");
  }

  @Test
  void letsConnectsValidationExplainABadTopicTemplate() {
    ConfigValue value =
        TransformConfig.DEF.validate(Map.of("router.topic.template", "outbox event")).stream()
            .filter(v -> v.name().equals("router.topic.template"))
            .findFirst()
            .orElseThrow();
    assertThat(value.errorMessages())
        .singleElement()
        .asString()
        .contains("use only a-z A-Z 0-9 . _ -");
  }
}
