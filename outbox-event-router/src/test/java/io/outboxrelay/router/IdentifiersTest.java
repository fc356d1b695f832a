package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    assertThatThrownBy(() -> Identifiers.requireTable(name, "table"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("table must be a plain SQL identifier");
  }

  @ParameterizedTest
  @ValueSource(strings = {"payload) VALUES (1", "a.b", "x y", "`x`", ""})
  void refusesColumnNamesThatAreNotPlainIdentifiers(String name) {
    assertThatThrownBy(() -> Identifiers.requireColumn(name, "payloadColumn"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payloadColumn must be a plain SQL identifier");
  }

  @Test
  void acceptsPlainNamesUpToPostgresqlsLimit() {
    assertThat(Identifiers.requireTable("app.outbox_events", "table"))
        .isEqualTo("app.outbox_events");
    assertThat(Identifiers.requireColumn("a".repeat(63), "column")).hasSize(63);
    assertThatThrownBy(() -> Identifiers.requireColumn("a".repeat(64), "column"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Identifiers.requireColumn(null, "column"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
