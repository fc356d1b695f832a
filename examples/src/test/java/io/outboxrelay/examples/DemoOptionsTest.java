package io.outboxrelay.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.relay.config.RelayMode;
import org.junit.jupiter.api.Test;

class DemoOptionsTest {

  @Test
  void runsCdcModeWithTheDemoNamesWhenNoModeIsGiven() {
    DemoOptions options = DemoOptions.parse();

    assertThat(options.mode()).isEqualTo(RelayMode.CDC);
    assertThat(options.orderTopic()).isEqualTo("outbox.event.order");
    assertThat(options.consumerGroup()).isEqualTo("notifications");
  }

  @Test
  void acceptsPollingModeAsTwoArgumentsOrOne() {
    assertThat(DemoOptions.parse("--mode", "polling").mode()).isEqualTo(RelayMode.POLLING);
    assertThat(DemoOptions.parse("--mode=POLLING").mode()).isEqualTo(RelayMode.POLLING);
    assertThat(DemoOptions.parse("--mode", "cdc").mode()).isEqualTo(RelayMode.CDC);
  }

  @Test
  void rejectsUnknownModesAndArguments() {
    assertThatThrownBy(() -> DemoOptions.parse("--mode", "batch"))
        .hasMessageContaining("cdc or polling");
    assertThatThrownBy(() -> DemoOptions.parse("--mode")).hasMessageContaining("--mode");
    assertThatThrownBy(() -> DemoOptions.parse("polling")).hasMessageContaining("polling");
  }
}
