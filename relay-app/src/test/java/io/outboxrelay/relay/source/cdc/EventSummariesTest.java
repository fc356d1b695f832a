package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.data.Envelope;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.meters.CommonEventMeter;
import io.debezium.pipeline.metrics.PipelineMetrics;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.relational.TableId;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.util.Clock;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class EventSummariesTest {

  /** Debezium's own summary: the position, key and value rendered as text. */
  private static final EventMetadataProvider DEBEZIUM =
      new EventMetadataProvider() {
        @Override
        public Instant getEventTimestamp(
            DataCollectionId source, OffsetContext offset, Object key, Struct value) {
          return Instant.EPOCH;
        }

        @Override
        public Map<String, String> getEventSourcePosition(
            DataCollectionId source, OffsetContext offset, Object key, Struct value) {
          return Map.of("pos", "4");
        }

        @Override
        public String getTransactionId(
            DataCollectionId source, OffsetContext offset, Object key, Struct value) {
          return "tx";
        }
      };

  @Test
  void theLastEventOfAShortenedMeterNamesItsTableAndTheCountersGoOn() throws Exception {
    CommonEventMeter meter = new CommonEventMeter(Clock.system(), DEBEZIUM);
    Schema schema = SchemaBuilder.struct().field("payload", Schema.STRING_SCHEMA).build();
    Struct value = new Struct(schema).put("payload", "{\"secret\":1}");
    TableId table = new TableId("shop", null, "outbox_events");

    meter.onEvent(table, null, null, value, Envelope.Operation.CREATE);
    assertThat(meter.getLastEvent()).contains("pos: 4"); // Debezium's rendering

    assertThat(EventSummaries.shorten(meter)).isTrue();
    meter.onEvent(table, null, null, value, Envelope.Operation.CREATE);

    assertThat(meter.getLastEvent()).isEqualTo("shop.outbox_events");
    assertThat(meter.getTotalNumberOfEventsSeen()).isEqualTo(2);
    assertThat(meter.getTotalNumberOfCreateEventsSeen()).isEqualTo(2);
  }

  @Test
  void thePinnedDebeziumHasTheFieldsTheShorteningReaches() throws Exception {
    // A Debezium upgrade that renames them makes the relay warn and render every event again.
    assertThat(ChangeEventSourceCoordinator.class.getDeclaredField("streamingMetrics")).isNotNull();
    assertThat(PipelineMetrics.class.getDeclaredField("commonEventMeter").getType())
        .isEqualTo(CommonEventMeter.class);
    assertThat(CommonEventMeter.class.getDeclaredField("metadataProvider").getType())
        .isEqualTo(EventMetadataProvider.class);
  }
}
