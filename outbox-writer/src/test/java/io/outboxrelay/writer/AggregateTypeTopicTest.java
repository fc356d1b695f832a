package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;

/**
 * The aggregate type must make a legal topic under the relay's default template {@code
 * outbox.event.${aggregate_type}}: the writer's rule, pinned against Kafka's own check, so that an
 * upgrade of Kafka that changes the rules fails here.
 */
class AggregateTypeTopicTest {

  private static boolean kafkaAccepts(String aggregateType) {
    try {
      Topic.validate(EventCheck.DEFAULT_TOPIC_PREFIX + aggregateType);
      return true;
    } catch (InvalidTopicException e) {
      return false;
    }
  }

  private static List<String> candidates() {
    List<String> types = new ArrayList<>();
    for (char c = 0; c < 0x250; c++) {
      types.add("order" + c);
      types.add(String.valueOf(c));
    }
    for (String s : new String[] {"€", "𝄞", "\uD834", "\uFFFF", "order v1", "order/v1", "a:b"}) {
      types.add(s);
    }
    for (int length = 230; length <= 240; length++) {
      types.add("a".repeat(length));
    }
    types.add(".");
    types.add("..");
    types.add("order.line_item-v2");
    return types;
  }

  @Test
  void refusesExactlyTheAggregateTypesThatKafkaRefusesInTheDefaultTopic() {
    for (String type : candidates()) {
      boolean writerAccepts = EventCheck.aggregateTypeProblem(type) == null;
      assertThat(writerAccepts)
          .as("aggregate type '%s' (%d chars)", type, type.length())
          .isEqualTo(kafkaAccepts(type));
    }
  }

  @Test
  void acceptsTheLongestAggregateTypeThatFitsAndRefusesOneMore() {
    assertThat(EventCheck.aggregateTypeProblem("a".repeat(236))).isNull();
    assertThat(EventCheck.aggregateTypeProblem("a".repeat(237)))
        .isEqualTo(
            "aggregate_type has 237 characters, more than the 236 that fit in the relay's default"
                + " topic outbox.event.<aggregate_type> (Kafka topic names have at most 249): use"
                + " a shorter name");
  }

  @Test
  void refusesAnEventWhoseAggregateTypeHasASlashNamingTheCharacterAndTheRule() {
    assertThatThrownBy(
            () -> EventCheck.checkAll(List.of(NewEvent.of("order/v1", "o-1", "OrderPaid", "{}"))))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(
            "event order/v1/o-1 OrderPaid: aggregate_type 'order/v1' has the character '/'"
                + " (U+002F) at index 5, which no Kafka topic may hold, and the relay's default"
                + " topic is outbox.event.<aggregate_type>: use only ASCII letters, digits, '.',"
                + " '_' and '-'")
        .extracting(e -> ((InvalidEventException) e).field())
        .isEqualTo("aggregate_type");
  }

  @Test
  void namesAControlCharacterByItsCodePoint() {
    assertThat(EventCheck.aggregateTypeProblem("order\n"))
        .startsWith("aggregate_type 'order\\u000a' has the character U+000A at index 5");
  }
}
