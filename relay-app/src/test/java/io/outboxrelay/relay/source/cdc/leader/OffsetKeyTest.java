package io.outboxrelay.relay.source.cdc.leader;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OffsetKeyTest {

  private static final String KEY = "[\"orders-relay\",{\"server\":\"orders-relay\"}]";

  @Test
  void writesTheKeyDebeziumsEngineWritesForARelay() {
    assertThat(OffsetKey.of("orders-relay")).isEqualTo(KEY);
  }

  @Test
  void recognisesTheKeyOfItsOwnEngineOnly() {
    assertThat(OffsetKey.belongsTo(KEY, "orders-relay")).isTrue();
    assertThat(
            OffsetKey.belongsTo(
                "[ \"orders-relay\", {\"server\": \"orders-relay\"} ]", "orders-relay"))
        .isTrue();
    assertThat(OffsetKey.belongsTo(KEY, "orders")).isFalse();
    assertThat(OffsetKey.belongsTo("[\"other\",{\"server\":\"orders-relay\"}]", "orders-relay"))
        .isFalse();
    assertThat(OffsetKey.belongsTo("[\"outbox-relay probe\"]", "orders-relay")).isFalse();
    assertThat(OffsetKey.belongsTo("not json", "orders-relay")).isFalse();
    assertThat(OffsetKey.belongsTo(null, "orders-relay")).isFalse();
  }
}
