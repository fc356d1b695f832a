package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.RoutingException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventCheckTest {

  /** Whether the relay accepts the header as the writer writes it. */
  private static boolean relayAccepts(String name, String value) {
    try {
      ApplicationHeaders.parse(ApplicationHeaders.encode(Map.of(name, value)));
      return true;
    } catch (RoutingException e) {
      return false;
    }
  }

  @Test
  void refusesExactlyTheHeaderNamesTheRelayReserves() {
    assertThat(ApplicationHeaders.RESERVED).isNotEmpty();
    for (String reserved : ApplicationHeaders.RESERVED) {
      assertThat(EventCheck.headerProblem(reserved, "v")).contains("choose another name");
      assertThat(relayAccepts(reserved, "v")).as(reserved).isFalse();
      String otherCase = reserved.toUpperCase(java.util.Locale.ROOT);
      assertThat(EventCheck.headerProblem(otherCase, "v")).isNull();
      assertThat(relayAccepts(otherCase, "v")).as(otherCase).isTrue();
    }
  }

  @Test
  void boundsNamePlusValueInUtf8BytesAtTheRelaysBound() {
    String value = "v".repeat(ApplicationHeaders.MAX_ENTRY_BYTES - 1);
    assertThat(EventCheck.headerProblem("n", value)).isNull();
    assertThat(relayAccepts("n", value)).isTrue();
    String over = (ApplicationHeaders.MAX_ENTRY_BYTES + 1) + " bytes";
    assertThat(EventCheck.headerProblem("nn", value)).contains(over);
    assertThat(relayAccepts("nn", value)).isFalse();
    assertThat(EventCheck.headerProblem("é", value)).contains(over);
    assertThat(relayAccepts("é", value)).isFalse();
  }

  @Test
  void namesASingleEventWithoutAPosition() {
    NewEvent event = NewEvent.builder("order", "o-1", "").payload("{}").build();

    assertThatThrownBy(() -> EventCheck.checkAll(List.of(event)))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(
            "event order/o-1 : event_type is empty: give what happened, e.g. \"OrderPaid\"");
  }

  @Test
  void refusesANullEventByItsPosition() {
    NewEvent good = NewEvent.of("order", "o-1", "OrderPaid", "{}");

    assertThatThrownBy(() -> EventCheck.checkAll(Arrays.asList(good, null)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("events[1] is null");
  }
}
