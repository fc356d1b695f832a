package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.CommonConnectorConfig;
import io.debezium.config.Configuration;
import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.relational.TableId;
import io.debezium.schema.DefaultTopicNamingStrategy;
import io.outboxrelay.relay.config.ConfigLoader;
import io.outboxrelay.relay.config.RelayConfig;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class CachedTopicNamingStrategyTest {

  private static Properties settings() {
    Properties p = new Properties();
    p.setProperty("topic.prefix", "relay-one");
    p.setProperty("topic.delimiter", "_");
    return p;
  }

  private static final List<TableId> TABLES =
      List.of(
          new TableId("shop", null, "outbox_events"),
          new TableId("shop", null, "outbox events$2"), // characters a topic name may not hold
          new TableId(null, null, "no_catalog"),
          new TableId("other", null, "outbox_events"));

  @Test
  void namesEveryTableAsDebeziumsDefaultDoes() {
    CachedTopicNamingStrategy cached = new CachedTopicNamingStrategy(settings());
    DefaultTopicNamingStrategy debeziums = new DefaultTopicNamingStrategy(settings());

    for (TableId table : TABLES) {
      assertThat(cached.dataChangeTopic(table))
          .as("%s", table)
          .isEqualTo(debeziums.dataChangeTopic(table));
      assertThat(cached.dataChangeTopic(table)) // from the cache now
          .as("%s again", table)
          .isEqualTo(debeziums.dataChangeTopic(table));
    }
    assertThat(cached.dataChangeTopic(TABLES.get(1))).isEqualTo("relay-one_shop_outbox_events_2");
  }

  @Test
  void computesATablesNameOnceAndKeepsNamingPastTheCachesBound() {
    CachedTopicNamingStrategy cached = new CachedTopicNamingStrategy(settings());
    TableId outbox = TABLES.get(0);

    String first = cached.dataChangeTopic(outbox);
    assertThat(cached.dataChangeTopic(outbox)).isSameAs(first);
    assertThat(cached.cachedCount()).isEqualTo(1);
    DefaultTopicNamingStrategy debeziums = new DefaultTopicNamingStrategy(settings());
    for (int i = 0; i < CachedTopicNamingStrategy.MAX_CACHED + 10; i++) {
      TableId table = new TableId("db" + i, null, "t");
      assertThat(cached.dataChangeTopic(table)).isEqualTo(debeziums.dataChangeTopic(table));
    }
    assertThat(cached.cachedCount()).isEqualTo(CachedTopicNamingStrategy.MAX_CACHED);
    assertThat(cached.dataChangeTopic(outbox)).isSameAs(first);
    TableId past = new TableId("db" + (CachedTopicNamingStrategy.MAX_CACHED + 5), null, "t");
    assertThat(cached.dataChangeTopic(past)).isEqualTo("relay-one_db1029_t");
  }

  @Test
  void isTheStrategyDebeziumLoadsForTheRelaysEngine() throws Exception {
    RelayConfig config =
        new ConfigLoader(Map.of())
            .parse(
                Map.of(
                    "source.host", "db.internal",
                    "source.database", "shop",
                    "source.user", "outbox_relay",
                    "source.password", "s3cret-pw",
                    "kafka.bootstrap.servers", "k1:9092",
                    "cdc.server.id", "5401"),
                null);
    Properties engine = DebeziumProperties.build(config);

    MariaDbConnectorConfig connector = new MariaDbConnectorConfig(Configuration.from(engine));

    assertThat(connector.getTopicNamingStrategy(CommonConnectorConfig.TOPIC_NAMING_STRATEGY))
        .isInstanceOf(CachedTopicNamingStrategy.class);
  }
}
