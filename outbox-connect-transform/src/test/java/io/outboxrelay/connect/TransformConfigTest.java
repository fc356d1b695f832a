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

  @Test
  void defaultsToTheRelaysColumnsAndEveryOwnHeader() {
    TransformConfig config = TransformConfig.parse(Map.of());
    assertThat(config.columns()).isEqualTo(io.outboxrelay.router.ColumnMapping.DEFAULT);
    // Every own header, as the router lists them (OutboxColumnTest pins the list).
    assertThat(config.routerHeaders()).isEqualTo(io.outboxrelay.router.OutboxHeaders.ALL);
    assertThat(config.rowIdColumn()).isEqualTo("id");
  }

  @Test
  void readsTheColumnSettingsAndPlacements() {
    TransformConfig config =
        TransformConfig.parse(
            Map.of(
                "router.headers", "id",
                "source.column.event.id", "id",
                "source.column.aggregate.type", "aggregatetype",
                "source.column.aggregate.id", "aggregateid",
                "source.column.event.type", "type",
                "source.column.additional.placement", "timestamp:header:eventTimestamp"));
    assertThat(config.routerHeaders()).containsExactly("id");
    assertThat(config.columns().requiredColumns())
        .containsExactly("id", "aggregatetype", "aggregateid", "type", "payload", "timestamp");
    assertThat(config.columns().placements().get(0).header()).isEqualTo("eventTimestamp");
  }

  @Test
  void refusesUnsupportedPlacementsOwnHeaderListsWithoutIdAndEmptyColumnNames() {
    assertThatThrownBy(
            () ->
                TransformConfig.parse(
                    Map.of(
                        "router.headers", "event_type",
                        "source.column.additional.placement", "type:envelope:eventType",
                        "source.column.payload", " ")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("3 problems")
        .hasMessageContaining("router.headers: id is missing")
        .hasMessageContaining("envelope placement, which is not supported")
        .hasMessageContaining("source.column.payload: a column name cannot be empty");
    assertThatThrownBy(
            () ->
                TransformConfig.parse(
                    Map.of("source.column.additional.placement", "type:header:id")))
        .hasMessageContaining("header id is also one of router.headers");
  }
}
