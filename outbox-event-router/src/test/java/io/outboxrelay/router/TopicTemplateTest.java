package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicTemplateTest {

  @ParameterizedTest
  @CsvSource({
    "outbox.event.${aggregate_type}, order, OrderCreated, outbox.event.order",
    "${aggregate_type}, order, OrderCreated, order",
    "${event_type}, order, OrderCreated, OrderCreated",
    "x_${aggregate_type}-${event_type}, a, b, x_a-b",
    "fixed.topic, order, OrderCreated, fixed.topic",
  })
  void rendersLegalTopics(String template, String aggregateType, String eventType, String topic) {
    assertThat(TopicTemplate.parse(template).render(aggregateType, eventType)).isEqualTo(topic);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "outbox.event.${aggregateType}",
        "outbox.${aggregate_type",
        "outbox event.${aggregate_type}",
        "outbox/${event_type}",
        "..",
        "__consumer_offsets",
        "",
        "   "
      })
  void rejectsTemplatesThatCanNeverYieldALegalTopic(String template) {
    assertThatThrownBy(() -> TopicTemplate.parse(template))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic template");
  }

  @ParameterizedTest
  @ValueSource(strings = {"order created", "order/x", "ordér", ""})
  void rejectsValuesThatMakeAnIllegalTopic(String aggregateType) {
    TopicTemplate template = TopicTemplate.parse("${aggregate_type}");

    assertThatThrownBy(() -> template.render(aggregateType, "E"))
        .isInstanceOf(RoutingException.class)
        .hasMessageContaining("not a legal Kafka topic name")
        .extracting(e -> ((RoutingException) e).reason())
        .isEqualTo(RoutingException.Reason.ILLEGAL_TOPIC);
  }

  @ParameterizedTest
  @ValueSource(strings = {"__consumer_offsets", "__transaction_state", "__share_group_state"})
  void rejectsKafkasInternalTopicsWhichBrokersRefuseRecordsFor(String aggregateType) {
    TopicTemplate template = TopicTemplate.parse("${aggregate_type}");

    assertThatThrownBy(() -> template.render(aggregateType, "E"))
        .isInstanceOf(RoutingException.class)
        .hasMessageContaining("internal topics");
    assertThat(template.render("__consumer_offsets2", "E")).isEqualTo("__consumer_offsets2");
  }

  @ParameterizedTest
  @ValueSource(ints = {249, 250})
  void enforcesKafkasTopicLengthLimit(int length) {
    TopicTemplate template = TopicTemplate.parse("${aggregate_type}");
    String name = "a".repeat(length);

    if (length <= TopicTemplate.MAX_TOPIC_LENGTH) {
      assertThat(template.render(name, "E")).hasSize(length);
    } else {
      assertThatThrownBy(() -> template.render(name, "E"))
          .isInstanceOf(RoutingException.class)
          .hasMessageContaining("longer than 249");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {".", ".."})
  void rejectsReservedNames(String name) {
    assertThat(TopicTemplate.problemWith(name)).contains("reserved");
  }
}
