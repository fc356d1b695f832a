package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.idempotency.AggregateVersion;
import io.outboxrelay.idempotency.EventRef;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class RecordEventsTest {

  private final RecordEvents events = new RecordEvents("id", "aggregate_version");

  private static ConsumerRecord<byte[], byte[]> record(String key, String... headers) {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            "t", 0, 7L, key == null ? null : key.getBytes(StandardCharsets.UTF_8), new byte[0]);
    for (int i = 0; i < headers.length; i += 2) {
      record.headers().add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return record;
  }

  @Test
  void takesTheEventIdFromTheIdHeader() {
    assertThat(events.toEventRef(record("o-1", "id", "e-1", "event_type", "OrderCreated")))
        .isEqualTo(EventRef.of("e-1"));
  }

  @Test
  void takesTheLastIdHeaderWhenThereAreSeveral() {
    assertThat(events.toEventRef(record("o-1", "id", "e-1", "id", "e-2")).eventId())
        .isEqualTo("e-2");
  }

  @Test
  void readsTheAggregateVersionWithTheKeyAsFallbackForTheAggregateId() {
    assertThat(
            events
                .toEventRef(
                    record("o-9", "id", "e-1", "aggregate_type", "order", "aggregate_version", "4"))
                .aggregateVersion())
        .isEqualTo(new AggregateVersion("order", "o-9", 4));
    assertThat(
            events
                .toEventRef(
                    record(
                        "k",
                        "id",
                        "e-1",
                        "aggregate_type",
                        "order",
                        "aggregate_id",
                        "o-1",
                        "aggregate_version",
                        "5"))
                .aggregateVersion())
        .isEqualTo(new AggregateVersion("order", "o-1", 5));
  }

  @Test
  void ignoresVersionsWhenNoVersionHeaderIsConfigured() {
    RecordEvents withoutVersions = new RecordEvents("event-id", null);

    assertThat(withoutVersions.toEventRef(record("k", "event-id", "e-1", "aggregate_version", "x")))
        .isEqualTo(EventRef.of("e-1"));
  }

  @Test
  void treatsARecordWithoutAnIdHeaderAsPoison() {
    assertThatThrownBy(() -> events.toEventRef(record("o-1", "event_type", "OrderCreated")))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("no 'id' header");
    assertThat(events.eventIdOrNull(record("o-1"))).isNull();
  }

  @Test
  void treatsInvalidIdsAndMalformedVersionsAsPoison() {
    assertThatThrownBy(() -> events.toEventRef(record("o-1", "id", " ")))
        .isInstanceOf(PoisonRecordException.class);
    assertThatThrownBy(
            () ->
                events.toEventRef(
                    record(
                        "o-1", "id", "e-1", "aggregate_type", "order", "aggregate_version", "v4")))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("invalid");
    assertThatThrownBy(
            () -> events.toEventRef(record("o-1", "id", "e-1", "aggregate_version", "4")))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("aggregate_type");
  }
}
