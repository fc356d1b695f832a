package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.connector.mariadb.MariaDbSourceInfoStructMaker;
import io.debezium.connector.mariadb.SourceInfo;
import java.time.Instant;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class LeanSourceInfoStructMakerTest {

  private final MariaDbConnectorConfig config =
      new MariaDbConnectorConfig(
          Configuration.create()
              .with("topic.prefix", "relay")
              .with("database.hostname", "localhost")
              .with("database.server.id", 42)
              .build());

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
    for (Field field : debeziums.schema().fields()) {
      assertThat(source.schema().field(field.name())).as(field.name()).isNotNull();
      assertThat(source.schema().field(field.name()).schema().type())
          .as(field.name())
          .isEqualTo(field.schema().type());
    }
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
}
