package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one declaration of the outbox table's columns, and what the router derives from it. */
class OutboxColumnTest {

  @Test
  void theDefaultMappingNamesEveryColumnByItsDefaultName() {
    for (OutboxColumn column : OutboxColumn.values()) {
      assertThat(ColumnMapping.DEFAULT.column(column)).isEqualTo(column.defaultName());
    }
    assertThat(ColumnMapping.DEFAULT.requiredColumns())
        .containsExactly("event_id", "aggregate_type", "aggregate_id", "event_type", "payload");
    assertThat(ColumnMapping.DEFAULT.optionalColumns())
        .containsExactly("aggregate_version", "headers", "tracingspancontext");
  }

  @Test
  void theConstructorNamesTheColumnsInTheirDeclaredOrder() {
    ColumnMapping debezium =
        new ColumnMapping(
            "id",
            "aggregatetype",
            "aggregateid",
            "type",
            "payload",
            "v",
            "h",
            "t",
            List.of(new HeaderPlacement("x", "y")));

    assertThat(debezium.eventId()).isEqualTo("id");
    assertThat(debezium.aggregateType()).isEqualTo("aggregatetype");
    assertThat(debezium.aggregateId()).isEqualTo("aggregateid");
    assertThat(debezium.eventType()).isEqualTo("type");
    assertThat(debezium.aggregateVersion()).isEqualTo("v");
    assertThat(debezium.headers()).isEqualTo("h");
    assertThat(debezium.traceContext()).isEqualTo("t");
    assertThat(debezium.with(OutboxColumn.HEADERS, "hh").headers()).isEqualTo("hh");
    assertThat(debezium.with(OutboxColumn.HEADERS, "h"))
        .isEqualTo(debezium)
        .hasSameHashCodeAs(debezium);
    assertThat(debezium.toString())
        .isEqualTo(
            "ColumnMapping[eventId=id, aggregateType=aggregatetype, aggregateId=aggregateid,"
                + " eventType=type, payload=payload, aggregateVersion=v, headers=h,"
                + " traceContext=t, placements=[x:header:y]]");
    assertThatThrownBy(() -> debezium.with(OutboxColumn.PAYLOAD, " "))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theRelaysOwnHeadersAreTheFourEveryRecordHasThenTheOptionalColumnsHeaders() {
    assertThat(OutboxHeaders.ALL)
        .containsExactly("id", "event_type", "aggregate_type", "aggregate_id", "aggregate_version");
    assertThat(ApplicationHeaders.RESERVED).containsExactlyInAnyOrderElementsOf(OutboxHeaders.ALL);
    for (OutboxColumn column : OutboxColumn.values()) {
      if (column.header() != null) {
        assertThat(OutboxHeaders.ALL).as(column.name()).contains(column.header());
      }
    }
  }

  @Test
  void anEventMadeFromColumnValuesGivesEachValueBack() {
    Map<OutboxColumn, Object> values = new EnumMap<>(OutboxColumn.class);
    for (OutboxColumn column : OutboxColumn.values()) {
      values.put(
          column,
          switch (column.kind()) {
            case PAYLOAD -> "{}".getBytes(StandardCharsets.UTF_8);
            case INTEGER -> 7L;
            default -> column.name().toLowerCase(java.util.Locale.ROOT);
          });
    }
    OutboxEvent event = OutboxEvent.of(3, Instant.EPOCH, values, List.of());

    for (OutboxColumn column : OutboxColumn.values()) {
      assertThat(event.value(column)).as(column.name()).isEqualTo(values.get(column));
    }
    assertThat(event.id()).isEqualTo(3);
    assertThat(event.createdAt()).isEqualTo(Instant.EPOCH);
  }

  @Test
  void camelNamesAreTheMappingsAccessors() {
    assertThat(OutboxColumn.AGGREGATE_VERSION.camelName()).isEqualTo("aggregateVersion");
    assertThat(OutboxColumn.TRACE_CONTEXT.camelName()).isEqualTo("traceContext");
    assertThat(OutboxColumn.HEADERS.camelName()).isEqualTo("headers");
  }
}
