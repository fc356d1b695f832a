package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventCheckTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "a", "é", "€", "𝄞", "a𝄞b€é", "\u0000", "\uFFFF"})
  void countsUtf8BytesAsTheJdkEncodes(String s) {
    assertThat(EventCheck.utf8Length(s)).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void findsTheFirstUnpairedSurrogate() {
    assertThat(EventCheck.utf8Length("ab\uD834")).isEqualTo(-3);
    assertThat(EventCheck.utf8Length("\uDD1Ex")).isEqualTo(-1);
    assertThat(EventCheck.utf8Length("x\uD834y")).isEqualTo(-2);
  }

  @Test
  void refusesTheRelaysHeaderNamesExactlyAndAcceptsOtherCases() {
    for (String reserved : EventCheck.RESERVED_HEADERS) {
      assertThat(EventCheck.headerProblem(reserved, "v")).contains("choose another name");
      assertThat(EventCheck.headerProblem(reserved.toUpperCase(java.util.Locale.ROOT), "v"))
          .isNull();
    }
    assertThat(EventCheck.RESERVED_HEADERS)
        .containsExactlyInAnyOrder(
            "id", "event_type", "aggregate_type", "aggregate_id", "aggregate_version");
  }

  @Test
  void boundsNamePlusValueInUtf8Bytes() {
    char[] value = new char[EventCheck.MAX_HEADER_BYTES - 1];
    Arrays.fill(value, 'v');
    assertThat(EventCheck.headerProblem("n", new String(value))).isNull();
    assertThat(EventCheck.headerProblem("nn", new String(value))).contains("8193 bytes");
    assertThat(EventCheck.headerProblem("é", new String(value))).contains("8193 bytes");
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
