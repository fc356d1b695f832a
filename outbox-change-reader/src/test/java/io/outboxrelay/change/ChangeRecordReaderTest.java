package io.outboxrelay.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutingException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The reader on a table laid out as Debezium's outbox table, with columns of other names. */
class ChangeRecordReaderTest {

  /** Debezium's outbox table: {@code id}, {@code aggregatetype}, {@code aggregateid}, ... */
  private static final ColumnMapping DEBEZIUM =
      new ColumnMapping(
          "id",
          "aggregatetype",
          "aggregateid",
          "type",
          "payload",
          ColumnMapping.DEFAULT_AGGREGATE_VERSION,
          ColumnMapping.DEFAULT_HEADERS,
          ColumnMapping.DEFAULT_TRACE_CONTEXT,
          List.of());

  private static final Schema ROW =
      SchemaBuilder.struct()
          .name("srv.app.outboxevent.Value")
          .field("relay_seq", Schema.INT64_SCHEMA)
          .field("id", Schema.OPTIONAL_STRING_SCHEMA)
          .field("aggregatetype", Schema.OPTIONAL_STRING_SCHEMA)
          .field("aggregateid", Schema.OPTIONAL_STRING_SCHEMA)
          .field("type", Schema.OPTIONAL_STRING_SCHEMA)
          .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  private static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("srv.app.outboxevent.Envelope")
          .field("op", Schema.STRING_SCHEMA)
          .field("after", ROW)
          .build();

  private static SourceRecord insert(Struct row) {
    return new SourceRecord(
        Map.of(),
        Map.of(),
        "srv.app.outboxevent",
        ENVELOPE,
        new Struct(ENVELOPE).put("op", "c").put("after", row));
  }

  private static Struct row() {
    return new Struct(ROW)
        .put("relay_seq", 7L)
        .put("id", "5f0c3c6e-7d0c-4d59-9b53-3b2f5d1c8a10")
        .put("aggregatetype", "order")
        .put("aggregateid", "o-1")
        .put("type", "OrderPaid")
        .put("payload", "{}");
  }

  @Test
  void readsTheMappedColumns() {
    OutboxEvent event = new ChangeRecordReader(DEBEZIUM, "relay_seq").read(insert(row()));

    assertThat(event.id()).isEqualTo(7L);
    assertThat(event.describe())
        .isEqualTo(
            "event_id=5f0c3c6e-7d0c-4d59-9b53-3b2f5d1c8a10 (aggregate_type='order',"
                + " aggregate_id='o-1')");
    assertThat(event.eventType()).isEqualTo("OrderPaid");
  }

  @ParameterizedTest
  @ValueSource(strings = {"id", "aggregatetype", "aggregateid", "type"})
  void namesTheMappedColumnNotTheDefaultWhenARowLacksARequiredValue(String column) {
    Struct row = row().put(column, null);
    ChangeRecordReader reader = new ChangeRecordReader(DEBEZIUM, "relay_seq");

    assertThatThrownBy(() -> reader.read(insert(row)))
        .isInstanceOf(RoutingException.class)
        .hasMessageStartingWith("outbox row id=7 event_id=")
        .hasMessageEndingWith("has a null " + column + ": make the column NOT NULL");
  }
}
