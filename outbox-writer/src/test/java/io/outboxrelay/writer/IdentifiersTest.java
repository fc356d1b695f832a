package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The builder checks names with the router's {@code Identifiers} (tested there). */
class IdentifiersTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "outbox_events; DROP TABLE orders",
        "outbox`events",
        "outbox\"events",
        "a.b.c",
        "1table",
        "",
        " outbox",
        "outbox-events",
        "évents"
      })
  void refusesTableNamesThatAreNotPlainIdentifiers(String name) {
    assertThatThrownBy(() -> OutboxWriter.builder().table(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("table must be a plain SQL identifier");
  }

  @ParameterizedTest
  @ValueSource(strings = {"payload) VALUES (1", "a.b", "x y", "`x`"})
  void refusesColumnNamesThatAreNotPlainIdentifiers(String name) {
    assertThatThrownBy(() -> OutboxWriter.builder().payloadColumn(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("payloadColumn must be a plain SQL identifier");
  }

  @Test
  void refusesANullRequiredColumnButAcceptsANullOptionalOne() {
    assertThatThrownBy(() -> OutboxWriter.builder().eventIdColumn(null))
        .isInstanceOf(IllegalArgumentException.class);
    OutboxWriter.builder().aggregateVersionColumn(null).headersColumn(null).build();
  }
}
