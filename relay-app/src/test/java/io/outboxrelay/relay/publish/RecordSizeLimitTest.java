package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.ProducerSettings;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordSizeLimitTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static RoutedRecord event(int payloadBytes) {
    return EventRouter.withDefaults()
        .route(
            new OutboxEvent(
                1L,
                "5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01",
                "order",
                "order-42",
                "OrderCreated",
                utf8("x".repeat(payloadBytes)),
                null));
  }

  @Test
  void countsARecordAsKafkasProducerDoesForTheCurrentRecordFormat() {
    // Batch overhead 61 + record overhead bound 21 + key (1 + 1) + value (1 + 2) + header count 1.
    RoutedRecord bare = new RoutedRecord("t", utf8("a"), List.of(), utf8("{}"));
    assertThat(RecordSizeLimit.serializedSize(bare)).isEqualTo(88);
    // A header adds its name and value, each with its length.
    RoutedRecord withHeader =
        new RoutedRecord("t", utf8("a"), List.of(RecordHeader.utf8("id", "x")), utf8("{}"));
    assertThat(RecordSizeLimit.serializedSize(withHeader)).isEqualTo(88 + 1 + 2 + 1 + 1);
    // The topic is not part of the record.
    assertThat(
            RecordSizeLimit.serializedSize(
                new RoutedRecord("other", utf8("a"), List.of(), utf8("{}"))))
        .isEqualTo(88);
  }

  @Test
  void acceptsARecordOfExactlyTheLimitAndRefusesOneByteMore() {
    RoutedRecord record = event(10_000);
    int size = RecordSizeLimit.serializedSize(record);

    assertThat(RecordSizeLimit.of(size, 33_554_432L).check(record)).isNull();
    assertThat(RecordSizeLimit.of(size - 1, 33_554_432L).check(record))
        .hasMessage(
            "the record is "
                + size
                + " bytes when serialized, more than the producer's max.request.size of "
                + (size - 1));
    assertThat(RecordSizeLimit.serializedSize(event(10_001))).isEqualTo(size + 1);
  }

  @Test
  void namesBufferMemoryWhenThatIsTheSmallerLimit() {
    RoutedRecord record = event(10_000);

    assertThat(RecordSizeLimit.of(1_048_576, 5_000L).check(record))
        .hasMessageContaining("more than the producer's buffer.memory of 5000");
  }

  @Test
  void readsTheEffectiveLimitFromTheProducerSettings() {
    Map<String, Object> defaults =
        new ProducerSettings(RelayMode.CDC, "k:9092", Map.of()).asProperties("relay");
    Map<String, Object> lowered =
        new ProducerSettings(RelayMode.CDC, "k:9092", Map.of("max.request.size", " 20000"))
            .asProperties("relay");

    assertThat(RecordSizeLimit.of(defaults).maxRequestSize()).isEqualTo(1_048_576);
    assertThat(RecordSizeLimit.of(lowered).maxRequestSize()).isEqualTo(20_000);
  }
}
