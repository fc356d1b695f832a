package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.testsupport.database.SimpleDataSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IdempotentConsumerBuilderTest {

  private final IdempotentProcessor processor =
      IdempotentProcessor.builder(new SimpleDataSource("jdbc:none:", "u", null), "billing").build();

  private IdempotentConsumer.Builder builder(Map<String, ?> kafka) {
    return IdempotentConsumer.builder()
        .kafkaProperties(kafka)
        .topics("outbox.event.order")
        .processor(processor)
        .handler((record, connection) -> {});
  }

  @Test
  void refusesToBuildAConsumerWithAutoCommitOn() {
    IdempotentConsumer.Builder builder =
        builder(
            Map.of(
                "bootstrap.servers", "127.0.0.1:1",
                "group.id", "billing",
                "enable.auto.commit", "true"));

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("enable.auto.commit=true is refused");
  }

  @Test
  void requiresAProcessorAHandlerAndATopic() {
    assertThatThrownBy(() -> IdempotentConsumer.builder().build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void closingAConsumerThatNeverRanClosesItsClientsAndRefusesALaterRun() {
    IdempotentConsumer consumer =
        builder(Map.of("bootstrap.servers", "127.0.0.1:1", "group.id", "billing"))
            .failurePolicy(FailurePolicy.deadLetter("billing.dlq"))
            .build();

    consumer.close();
    consumer.close();

    assertThatThrownBy(consumer::run).isInstanceOf(IllegalStateException.class);
    assertThat(consumer.counters()).isEqualTo(new Counters(0, 0, 0, 0, 0, 0));
  }

  @Test
  void refusesIllegalDeadLetterTopicNames() {
    assertThatThrownBy(() -> FailurePolicy.deadLetter("no spaces"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FailurePolicy.deadLetter(null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
