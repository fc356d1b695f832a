package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.ConfigLoader;
import io.outboxrelay.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The engine captures exactly the columns the column settings name, and nothing of polling's. */
class DebeziumColumnsTest {

  private static Properties engine(Map<String, String> more) throws Exception {
    Map<String, String> raw = new HashMap<>();
    raw.put("source.host", "db.internal");
    raw.put("source.database", "shop");
    raw.put("source.user", "outbox_relay");
    raw.put("kafka.bootstrap.servers", "k1:9092");
    raw.put("cdc.server.id", "5401");
    raw.putAll(more);
    RelayConfig config = new ConfigLoader(Map.of()).parse(raw, null);
    return DebeziumProperties.build(config);
  }

  @Test
  void capturesTheRelaysOwnColumnsByDefault() throws Exception {
    assertThat(engine(Map.of()).getProperty("column.include.list"))
        .isEqualTo(
            "\\Qshop.outbox_events.\\E(id|event_id|aggregate_type|aggregate_id|event_type|payload"
                + "|aggregate_version|headers|tracingspancontext)");
  }

  @Test
  void capturesTheMappedAndPlacedColumnsOfDebeziumsTable() throws Exception {
    Map<String, String> debezium =
        Map.of(
            "source.table", "outbox",
            "source.column.event.id", "id",
            "source.column.aggregate.type", "aggregatetype",
            "source.column.aggregate.id", "aggregateid",
            "source.column.event.type", "type",
            "source.column.sequence", "relay_seq",
            "source.column.additional.placement", "timestamp:header:eventTimestamp,type:header");
    assertThat(engine(debezium).getProperty("column.include.list"))
        .isEqualTo(
            "\\Qshop.outbox.\\E(relay_seq|id|aggregatetype|aggregateid|type|payload|timestamp"
                + "|aggregate_version|headers|tracingspancontext)");
  }
}
