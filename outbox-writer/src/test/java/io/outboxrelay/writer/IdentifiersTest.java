package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The builder checks every name it puts into SQL with the router's {@code Identifiers} (whose rules
 * are tested there), naming the setting.
 */
class IdentifiersTest {

  @Test
  void refusesATableNameThatIsNotAPlainIdentifier() {
    assertThatThrownBy(() -> OutboxWriter.builder().table("outbox_events; DROP TABLE orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("table must be a plain SQL identifier");
  }

  @Test
  void refusesAColumnNameThatIsNotAPlainIdentifierNamingTheSetting() {
    assertThatThrownBy(() -> OutboxWriter.builder().payloadColumn("payload) VALUES (1"))
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
