package io.outboxrelay.testsupport.stack;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumedRecordTest {

  @Test
  void comparesByteContentNotArrayIdentity() {
    assertThat(record("k", "v", "id", "1")).isEqualTo(record("k", "v", "id", "1"));
    assertThat(record("k", "v", "id", "1")).hasSameHashCodeAs(record("k", "v", "id", "1"));
    assertThat(record("k", "v", "id", "1")).isNotEqualTo(record("k", "w", "id", "1"));
    assertThat(record("k", "v", "id", "1")).isNotEqualTo(record("k", "v", "id", "2"));
  }

  @Test
  void keepsHeadersInOrderAndUnmodifiable() {
    Map<String, byte[]> headers = new LinkedHashMap<>();
    headers.put("z", bytes("1"));
    headers.put("a", bytes("2"));
    ConsumedRecord record = new ConsumedRecord("t", 0, 1, null, headers, null, 0);

    assertThat(record.headers().keySet()).containsExactly("z", "a");
    assertThatThrownBy(() -> record.headers().put("b", bytes("3")))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void decodesKeyValueAndHeadersAsUtf8AndNullsStayNull() {
    ConsumedRecord record = record("clé", "{\"a\":1}", "event_type", "Created");
    ConsumedRecord tombstone = new ConsumedRecord("t", 0, 1, null, Map.of(), null, 0);

    assertThat(record.keyAsString()).isEqualTo("clé");
    assertThat(record.valueAsString()).isEqualTo("{\"a\":1}");
    assertThat(record.header("event_type")).isEqualTo("Created");
    assertThat(record.header("missing")).isNull();
    assertThat(tombstone.keyAsString()).isNull();
    assertThat(tombstone.valueAsString()).isNull();
  }

  @Test
  void abbreviatesLongValuesInToString() {
    ConsumedRecord record = record("k", "x".repeat(500), "id", "1");

    assertThat(record.toString()).contains("t-2@3").contains("id=1").hasSizeLessThan(250);
  }

  private static ConsumedRecord record(String key, String value, String header, String hv) {
    return new ConsumedRecord("t", 2, 3, bytes(key), Map.of(header, bytes(hv)), bytes(value), 42);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }
}
