package io.outboxrelay.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.testsupport.database.SimpleDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValidationTest {

  private static final DataSource NOWHERE = new SimpleDataSource("jdbc:none:", "u", null);

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "id ", "a\t "})
  void refusesBlankEventIdsAndIdsEndingWithASpace(String id) {
    assertThatThrownBy(() -> EventRef.of(id)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesEventIdsLongerThanTheKeyColumnInsteadOfLettingInsertIgnoreTruncateThem() {
    assertThat(EventRef.of("x".repeat(255)).eventId()).hasSize(255);
    assertThatThrownBy(() -> EventRef.of("x".repeat(256)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("longer than 255");
  }

  @Test
  void refusesBlankAggregateNames() {
    assertThatThrownBy(() -> EventRef.of("e1", "", "o-1", 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EventRef.of("e1", "order", " ", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void hashesAPayloadWithSha256AndKeepsTheIdAndVersion() {
    EventRef event =
        EventRef.of("e1", "order", "o-1", 3)
            .withPayload("abc".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    // The FIPS 180-2 test vector of "abc".
    assertThat(event.payloadHash())
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(event.eventId()).isEqualTo("e1");
    assertThat(event.aggregateVersion()).isEqualTo(new AggregateVersion("order", "o-1", 3));
    assertThat(EventRef.of("e1").payloadHash()).isNull();
    assertThat(new EventRef("e1", null)).isEqualTo(EventRef.of("e1"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "abc",
        "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad00",
        "za7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
      })
  void refusesPayloadHashesThatAreNotSha256AsLowercaseHex(String hash) {
    assertThatThrownBy(() -> new EventRef("e1", null, hash))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64 lowercase hex digits");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"processed events", "x;DROP TABLE y", "1abc", "a.b.c", "`quoted`", "", "a-b"})
  void refusesTableNamesThatAreNotPlainIdentifiers(String table) {
    IdempotentProcessor.Builder builder = IdempotentProcessor.builder(NOWHERE, "g");
    assertThatThrownBy(() -> builder.processedEventsTable(table))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("processedEventsTable must be a plain SQL identifier");
    assertThatThrownBy(() -> builder.aggregateVersionsTable(table))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"processed_events", "billing.processed_events", "_x1", "T"})
  void acceptsPlainAndSchemaQualifiedTableNames(String table) {
    assertThat(
            IdempotentProcessor.builder(NOWHERE, "g")
                .processedEventsTable(table)
                .aggregateVersionsTable(table)
                .build())
        .isNotNull();
  }

  @Test
  void refusesABlankConsumerGroupAndPurgeBatchSizesOutOfRange() {
    assertThatThrownBy(() -> IdempotentProcessor.builder(NOWHERE, " "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IdempotentProcessor.builder(NOWHERE, "g").purgeBatchSize(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void buildingAProcessorDoesNotConnect() {
    IdempotentProcessor processor = IdempotentProcessor.builder(NOWHERE, "billing").build();

    assertThat(processor.consumerGroup()).isEqualTo("billing");
    assertThat(processor.counters()).isEqualTo(new Counters(0, 0, 0, 0, 0, 0));
  }

  @Test
  void countsAFailureToConnectAndNamesTheEvent() {
    IdempotentProcessor processor = IdempotentProcessor.builder(NOWHERE, "billing").build();

    assertThatThrownBy(() -> processor.process("e1", c -> {}))
        .isInstanceOf(EventProcessingException.class)
        .hasMessageContaining("e1");
    assertThat(processor.counters().failures()).isEqualTo(1);
  }
}
