package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.connector.mariadb.MariaDbSourceInfoStructMaker;
import io.debezium.connector.mariadb.SourceInfo;
import io.debezium.connector.mysql.MySqlConnectorConfig;
import io.debezium.connector.mysql.MySqlSourceInfoStructMaker;
import java.time.Instant;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class LeanSourceInfoStructMakerTest {

  private static final Configuration SETTINGS =
      Configuration.create()
          .with("topic.prefix", "relay")
          .with("database.hostname", "localhost")
          .with("database.server.id", 42)
          .build();

  private final MariaDbConnectorConfig config = new MariaDbConnectorConfig(SETTINGS);

  @Test
  void fillsTheEventTimeAndPositionThatAreReadAndKeepsEveryFieldOfDebeziumsBlock() {
    LeanSourceInfoStructMaker maker = new LeanSourceInfoStructMaker();
    maker.init("mariadb", "3.5.0.Final", config);
    SourceInfo info = new SourceInfo(config);
    info.setBinlogPosition("mariadb-bin.000007", 1234);
    info.setRowNumber(3);
    info.startGtid("0-1-99");
    info.setSourceTime(Instant.ofEpochMilli(1_700_000_000_123L));

    Struct source = maker.struct(info);

    source.validate();
    assertThat(source.getInt64("ts_ms")).isEqualTo(1_700_000_000_123L);
    assertThat(source.getString("file")).isEqualTo("mariadb-bin.000007");
    assertThat(source.getInt64("pos")).isEqualTo(info.getCurrentBinlogPosition());
    assertThat(source.getInt32("row")).isEqualTo(3);
    assertThat(source.getString("gtid")).isEqualTo("0-1-99");
    assertThat(source.schema().name()).isEqualTo("io.debezium.connector.mariadb.Source");
    // Every field of Debezium's own block exists, with its type: a reader of any of them finds it.
    MariaDbSourceInfoStructMaker debeziums = new MariaDbSourceInfoStructMaker();
    debeziums.init("mariadb", "3.5.0.Final", config);
    hasEveryFieldOf(source, debeziums.schema());
  }

  @Test
  void stampsAnEventWithoutABinlogTimeWithNowAsDebeziumDoes() {
    LeanSourceInfoStructMaker maker = new LeanSourceInfoStructMaker();
    maker.init("mariadb", "3.5.0.Final", config);
    long before = System.currentTimeMillis();

    Struct source = maker.struct(new SourceInfo(config));

    assertThat(source.getInt64("ts_ms")).isBetween(before, System.currentTimeMillis());
    assertThat(source.get("gtid")).isNull();
  }

  @Test
  void fillsMySqlsBlockTheSameWay() {
    MySqlConnectorConfig mySql = new MySqlConnectorConfig(SETTINGS);
    LeanSourceInfoStructMaker maker = new LeanSourceInfoStructMaker();
    maker.init("mysql", "3.5.0.Final", mySql);
    io.debezium.connector.mysql.SourceInfo info = new io.debezium.connector.mysql.SourceInfo(mySql);
    info.setBinlogPosition("mysql-bin.000002", 4321);
    info.setRowNumber(1);
    info.setSourceTime(Instant.ofEpochMilli(1_700_000_000_456L));

    Struct source = maker.struct(info);

    source.validate();
    assertThat(source.getInt64("ts_ms")).isEqualTo(1_700_000_000_456L);
    assertThat(source.getString("file")).isEqualTo("mysql-bin.000002");
    assertThat(source.getInt32("row")).isEqualTo(1);
    assertThat(source.schema().name()).isEqualTo("io.debezium.connector.mysql.Source");
    MySqlSourceInfoStructMaker debeziums = new MySqlSourceInfoStructMaker();
    debeziums.init("mysql", "3.5.0.Final", mySql);
    hasEveryFieldOf(source, debeziums.schema());
  }

  private static void hasEveryFieldOf(Struct source, Schema debeziums) {
    for (Field field : debeziums.fields()) {
      assertThat(source.schema().field(field.name())).as(field.name()).isNotNull();
      assertThat(source.schema().field(field.name()).schema().type())
          .as(field.name())
          .isEqualTo(field.schema().type());
    }
  }
}
