package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.ConfigLoader;
import io.outboxrelay.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The names and engine settings of CDC on PostgreSQL. */
class PostgresReplicationTest {

  private static Properties engine(String relayName) throws Exception {
    Map<String, String> raw = new HashMap<>();
    raw.put("source.flavor", "postgresql");
    raw.put("source.host", "db.internal");
    raw.put("source.database", "shop");
    raw.put("source.user", "outbox_relay");
    raw.put("kafka.bootstrap.servers", "k1:9092");
    raw.put("relay.name", relayName);
    RelayConfig config = new ConfigLoader(Map.of()).parse(raw, null);
    return DebeziumProperties.build(config);
  }

  @Test
  void printsAndReadsLsnsAsPostgresqlPrintsPgLsn() {
    // pg_lsn's output: the high and low 32 bits in upper-case hex, unpadded.
    assertThat(PostgresReplication.lsnText(0)).isEqualTo("0/0");
    assertThat(PostgresReplication.lsnText(0x16B374D848L)).isEqualTo("16/B374D848");
    assertThat(PostgresReplication.lsnText((1L << 32) | 0xFFFFFFFFL)).isEqualTo("1/FFFFFFFF");
    assertThat(PostgresReplication.lsnNumber("16/B374D848")).isEqualTo(0x16B374D848L);
    assertThat(PostgresReplication.lsnNumber("1/FFFFFFFF")).isEqualTo((1L << 32) | 0xFFFFFFFFL);
  }

  @Test
  void namesTheSlotAndPublicationFromTheRelayNameAsPostgresqlAcceptsThem() {
    assertThat(PostgresReplication.slotName("orders")).isEqualTo("outbox_relay_orders");
    assertThat(PostgresReplication.publicationName("orders")).isEqualTo("outbox_relay_orders");
    // Changed characters get a hash, so that "orders-eu" and "orders_eu" keep apart.
    assertThat(PostgresReplication.slotName("orders-eu"))
        .matches("outbox_relay_orders_eu_[0-9a-f]{8}");
    assertThat(PostgresReplication.slotName("orders-eu"))
        .isNotEqualTo(PostgresReplication.slotName("orders_eu"))
        .isNotEqualTo(PostgresReplication.slotName("Orders-EU"));
    String longest = PostgresReplication.slotName("a".repeat(64));
    assertThat(longest).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9_]+");
    assertThat(longest).isNotEqualTo(PostgresReplication.slotName("a".repeat(63)));
  }

  @Test
  void readsTheSlotWithPgoutputAndTheRelaysOwnPublicationAndNothingOfTheBinlog() throws Exception {
    Properties p = engine("orders");

    assertThat(p.getProperty("connector.class")).isEqualTo(OutboxPostgresConnector.class.getName());
    assertThat(p.getProperty("plugin.name")).isEqualTo("pgoutput");
    assertThat(p.getProperty("slot.name")).isEqualTo("outbox_relay_orders");
    assertThat(p.getProperty("publication.name")).isEqualTo("outbox_relay_orders");
    assertThat(p.getProperty("publication.autocreate.mode")).isEqualTo("disabled");
    assertThat(p.getProperty("database.dbname")).isEqualTo("shop");
    assertThat(p.getProperty("snapshot.mode")).isEqualTo("no_data");
    assertThat(p.getProperty("skipped.operations")).isEqualTo("u,d,t");
    assertThat(p.getProperty("heartbeat.action.query"))
        .isEqualTo(PostgresReplication.HEARTBEAT_QUERY);
    // Debezium's connections (the streaming thread's heartbeat and probe among them) wait for a
    // silent server at most two minutes, not until TCP gives up; pgjdbc counts seconds.
    assertThat(p.getProperty("driver.socketTimeout")).isEqualTo("120");
    assertThat(p.getProperty("offset.storage.jdbc.connection.url"))
        .startsWith("jdbc:postgresql://db.internal:5432/shop?")
        .contains("&socketTimeout=30&") // pgjdbc counts seconds
        // A leader frozen in a position commit must not hold its locks past half the lease.
        .endsWith("&options=-c%20idle_in_transaction_session_timeout%3D3000");
    assertThat(p)
        .doesNotContainKeys(
            "database.server.id",
            "database.include.list",
            "sourceinfo.struct.maker",
            "schema.history.internal",
            "connect.keep.alive.interval.ms");
  }

  @Test
  void filtersTheOutboxTableInAnySchemaAndNoOtherTable() throws Exception {
    Properties p = engine("orders");
    Pattern tables = Pattern.compile(p.getProperty("table.include.list"));
    Pattern columns = Pattern.compile(p.getProperty("column.include.list"));

    assertThat(tables.matcher("public.outbox_events").matches()).isTrue();
    assertThat(tables.matcher("app.outbox_events").matches()).isTrue();
    assertThat(tables.matcher("public.outbox_events2").matches()).isFalse();
    assertThat(tables.matcher("public.outboxXevents").matches()).isFalse();
    assertThat(columns.matcher("public.outbox_events.payload").matches()).isTrue();
    assertThat(columns.matcher("public.outbox_events.status").matches()).isFalse();
  }
}
