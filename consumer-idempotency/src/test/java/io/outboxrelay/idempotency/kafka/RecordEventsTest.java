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
    assertThat(events.toEventRef(record("o-1", "id", "e-1", "event_type", "OrderCreated"), false))
        .isEqualTo(EventRef.of("e-1"));
  }

  @Test
  void hashesTheRecordValueForTheConflictCheckAndGivesANullValueNoHash() {
    byte[] value = "{\"order\":\"o-1\"}".getBytes(StandardCharsets.UTF_8);
    ConsumerRecord<byte[], byte[]> withValue = new ConsumerRecord<>("t", 0, 7L, null, value);
    withValue.headers().add("id", "e-1".getBytes(StandardCharsets.UTF_8));
    ConsumerRecord<byte[], byte[]> withoutValue = new ConsumerRecord<>("t", 0, 8L, null, null);
    withoutValue.headers().add("id", "e-1".getBytes(StandardCharsets.UTF_8));

    assertThat(events.toEventRef(withValue, true).payloadHash())
        .isEqualTo(EventRef.of("e-1").withPayload(value).payloadHash())
        .isNotEqualTo(EventRef.of("e-1").withPayload(new byte[0]).payloadHash());
    assertThat(events.toEventRef(withoutValue, true)).isEqualTo(EventRef.of("e-1"));
    assertThat(events.toEventRef(withValue, false))
        .as("without the conflict check nothing is hashed")
        .isEqualTo(EventRef.of("e-1"));
  }

  @Test
  void readsDeserialisedRecordsLikeTheirBytes() {
    String value = "{\"order\":\"o-1\",\"note\":\"caf\u00e9\"}";
    ConsumerRecord<String, String> text = new ConsumerRecord<>("t", 0, 7L, "o-9", value);
    text.headers().add("id", "e-1".getBytes(StandardCharsets.UTF_8));
    text.headers().add("aggregate_type", "order".getBytes(StandardCharsets.UTF_8));
    text.headers().add("aggregate_version", "4".getBytes(StandardCharsets.UTF_8));
    ConsumerRecord<Long, Object> other = new ConsumerRecord<>("t", 0, 8L, 9L, new Object());
    other.headers().add("id", "e-2".getBytes(StandardCharsets.UTF_8));
    other.headers().add("aggregate_type", "order".getBytes(StandardCharsets.UTF_8));

    assertThat(events.toEventRef(text, true))
        .as("a String key is the aggregate id; a String value hashes as its UTF-8 bytes")
        .isEqualTo(
            EventRef.of("e-1", "order", "o-9", 4)
                .withPayload(value.getBytes(StandardCharsets.UTF_8)));
    assertThat(events.toEventRef(other, true))
        .as("a value of another type gives no hash")
        .isEqualTo(EventRef.of("e-2"));
    other.headers().add("aggregate_version", "1".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> events.toEventRef(other, false))
        .as("a key of another type is no aggregate id")
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("aggregate id");
  }

  @Test
  void refusesABlankHeaderName() {
    assertThatThrownBy(() -> new RecordEvents(" ", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RecordEvents("id", ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void takesTheLastIdHeaderWhenThereAreSeveral() {
    assertThat(events.toEventRef(record("o-1", "id", "e-1", "id", "e-2"), false).eventId())
        .isEqualTo("e-2");
  }

  @Test
  void readsTheAggregateVersionWithTheKeyAsFallbackForTheAggregateId() {
    assertThat(
            events
                .toEventRef(
                    record("o-9", "id", "e-1", "aggregate_type", "order", "aggregate_version", "4"),
                    false)
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
                        "5"),
                    false)
                .aggregateVersion())
        .isEqualTo(new AggregateVersion("order", "o-1", 5));
  }

  @Test
  void ignoresVersionsWhenNoVersionHeaderIsConfigured() {
    RecordEvents withoutVersions = new RecordEvents("event-id", null);

    assertThat(
            withoutVersions.toEventRef(
                record("k", "event-id", "e-1", "aggregate_version", "x"), false))
        .isEqualTo(EventRef.of("e-1"));
  }

  @Test
  void treatsARecordWithoutAnIdHeaderAsPoison() {
    assertThatThrownBy(() -> events.toEventRef(record("o-1", "event_type", "OrderCreated"), false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("no 'id' header");
    assertThat(events.eventIdOrNull(record("o-1"))).isNull();
  }

  @Test
  void treatsInvalidIdsAndMalformedVersionsAsPoison() {
    assertThatThrownBy(() -> events.toEventRef(record("o-1", "id", " "), false))
        .isInstanceOf(PoisonRecordException.class);
    assertThatThrownBy(
            () ->
                events.toEventRef(
                    record(
                        "o-1", "id", "e-1", "aggregate_type", "order", "aggregate_version", "v4"),
                    false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("invalid");
    assertThatThrownBy(
            () -> events.toEventRef(record("o-1", "id", "e-1", "aggregate_version", "4"), false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("aggregate_type");
  }

  private static ConsumerRecord<byte[], byte[]> withRawHeader(
      byte[] key, String name, byte[] value) {
    ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("t", 0, 7L, key, new byte[0]);
    record.headers().add(name, value);
    return record;
  }

  @Test
  void treatsAnIdThatIsNotUtf8AsPoisonInsteadOfReplacingTheBadBytes() {
    // Leniently decoded, both would read "e\uFFFD" and the second would count as a duplicate.
    ConsumerRecord<byte[], byte[]> first = withRawHeader(null, "id", new byte[] {'e', (byte) 0xff});
    ConsumerRecord<byte[], byte[]> second =
        withRawHeader(null, "id", new byte[] {'e', (byte) 0xfe});

    assertThatThrownBy(() -> events.toEventRef(first, false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessage(
            "the record's 'id' header is not valid UTF-8 (bytes 65ff): the producer must write"
                + " it as UTF-8 text");
    assertThatThrownBy(() -> events.toEventRef(second, false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("(bytes 65fe)");
    assertThat(events.eventIdOrNull(first)).isNull();
    assertThat(events.describeId(first)).isEqualTo("event id not valid UTF-8: 65ff");
    assertThat(events.describeId(record("k", "id", "e-1"))).isEqualTo("event id e-1");
    assertThat(events.describeId(record("k"))).isEqualTo("no event id");
  }

  @Test
  void rejectsTruncatedAndOverlongUtf8Sequences() {
    byte[][] invalid = {
      {(byte) 0xe2, (byte) 0x82}, // a three-byte sequence cut short
      {(byte) 0xc0, (byte) 0xaf}, // an overlong encoding of '/'
      {(byte) 0xed, (byte) 0xa0, (byte) 0x80} // a UTF-16 surrogate encoded as UTF-8
    };
    for (byte[] id : invalid) {
      assertThatThrownBy(() -> events.toEventRef(withRawHeader(null, "id", id), false))
          .isInstanceOf(PoisonRecordException.class)
          .hasMessageContaining("not valid UTF-8");
    }
    byte[] valid = "é-€-😀".getBytes(StandardCharsets.UTF_8);
    assertThat(events.toEventRef(withRawHeader(null, "id", valid), false).eventId())
        .isEqualTo("é-€-😀");
  }

  @Test
  void treatsAggregateHeadersOrAKeyThatAreNotUtf8AsPoison() {
    ConsumerRecord<byte[], byte[]> badType = record("o-1", "id", "e-1", "aggregate_version", "4");
    badType.headers().add("aggregate_type", new byte[] {'o', (byte) 0x80});
    ConsumerRecord<byte[], byte[]> badKey =
        withRawHeader(new byte[] {'o', (byte) 0xff}, "id", "e-1".getBytes(StandardCharsets.UTF_8));
    badKey.headers().add("aggregate_type", "order".getBytes(StandardCharsets.UTF_8));
    badKey.headers().add("aggregate_version", "4".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> events.toEventRef(badType, false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("'aggregate_type' header is not valid UTF-8");
    assertThatThrownBy(() -> events.toEventRef(badKey, false))
        .isInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("key is not valid UTF-8");
  }
}
