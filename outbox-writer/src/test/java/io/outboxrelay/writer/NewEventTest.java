package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NewEventTest {

  @Test
  void keepsWhatItWasGiven() {
    UUID id = UUID.randomUUID();
    NewEvent event =
        NewEvent.builder("order", "o-1", "OrderPaid")
            .eventId(id)
            .payload("{}")
            .aggregateVersion(3)
            .header("b", "2")
            .header("a", "1")
            .build();

    assertThat(event.eventId()).isEqualTo(id.toString());
    assertThat(event.aggregateType()).isEqualTo("order");
    assertThat(event.aggregateId()).isEqualTo("o-1");
    assertThat(event.eventType()).isEqualTo("OrderPaid");
    assertThat(event.payload()).isEqualTo("{}");
    assertThat(event.aggregateVersion()).isEqualTo(3L);
    assertThat(event.headers()).containsExactly(Map.entry("b", "2"), Map.entry("a", "1"));
  }

  @Test
  void copiesBytePayloadsInAndOut() {
    byte[] bytes = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    NewEvent event = NewEvent.of("order", "o-1", "OrderPaid", bytes);
    bytes[0] = 'x';
    ((byte[]) event.payload())[1] = 'y';

    assertThat(new String((byte[]) event.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
  }

  @Test
  void takesAStringOrBytesGivenAsAnObjectAsText() {
    Object text = "{\"a\":1}";

    assertThat(NewEvent.builder("a", "b", "c").payload(text).build().payload()).isSameAs(text);
  }

  @Test
  void refusesAHeaderNameGivenTwice() {
    NewEvent.Builder builder = NewEvent.builder("a", "b", "c").header("tenant", "x");
    Map<String, String> more = new LinkedHashMap<>();
    more.put("tenant", "y");

    assertThatThrownBy(() -> builder.header("tenant", "y"))
        .hasMessageContaining("header 'tenant' is given twice");
    assertThatThrownBy(() -> builder.headers(more)).hasMessageContaining("given twice");
  }

  @Test
  void isNotChangedByItsBuilderAfterwards() {
    NewEvent.Builder builder = NewEvent.builder("a", "b", "c").payload("{}").header("x", "1");
    NewEvent first = builder.build();
    builder.header("y", "2");

    assertThat(first.headers()).containsOnlyKeys("x");
    assertThatThrownBy(() -> first.headers().put("z", "3"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void showsNeitherPayloadNorHeaderValues() {
    NewEvent event =
        NewEvent.builder("order", "o-1", "OrderPaid")
            .payload("{\"card\":\"4111\"}")
            .header("token", "secret")
            .build();

    assertThat(event.toString())
        .contains("order/o-1 OrderPaid", "token")
        .doesNotContain("4111", "secret");
  }
}
