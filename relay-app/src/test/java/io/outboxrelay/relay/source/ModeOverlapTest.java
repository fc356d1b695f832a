package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ModeOverlapTest {

  @Test
  void readsTheRelayNameOutOfADebeziumOffsetKey() {
    assertThat(ModeOverlap.offsetRelayName("[\"orders\",{\"server\":\"orders\"}]"))
        .isEqualTo("orders");
    assertThat(ModeOverlap.offsetRelayName("[\"a \\\"quoted\\\" name\",{}]"))
        .isEqualTo("a \\\"quoted\\\" name");
    assertThat(ModeOverlap.offsetRelayName("something else")).isEqualTo("?");
    assertThat(ModeOverlap.offsetRelayName(null)).isEqualTo("?");
  }
}
