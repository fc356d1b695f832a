package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.connector.mariadb.MariaDbConnector;
import io.debezium.connector.mysql.MySqlConnector;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceConnector;
import org.junit.jupiter.api.Test;

class DebeziumTaskConfigTest {

  private static Map<String, String> taskConfig(SourceConnector connector) {
    connector.start(
        Map.of("connector.class", connector.getClass().getName(), "snapshot.mode", "no_data"));
    List<Map<String, String>> configs = connector.taskConfigs(1);
    assertThat(configs).hasSize(1);
    return configs.get(0);
  }

  @Test
  void theTasksSeeDebeziumsConnectorClassSoItsOwnSnapshotImplementationsAreFound() {
    // Regression: with the relay's subclass named there, Debezium warned on every start and took
    // the MySQL connector's snapshot lock and query implementations for MariaDB.
    assertThat(taskConfig(new OutboxMariaDbConnector()))
        .containsEntry("connector.class", MariaDbConnector.class.getName())
        .containsEntry("snapshot.mode", "no_data");
    assertThat(taskConfig(new OutboxMySqlConnector()))
        .containsEntry("connector.class", MySqlConnector.class.getName())
        .containsEntry("snapshot.mode", "no_data");
  }

  @Test
  void theEngineStillStartsTheRelaysTasks() {
    assertThat(new OutboxMariaDbConnector().taskClass())
        .isEqualTo(OutboxMariaDbConnectorTask.class);
    assertThat(new OutboxMySqlConnector().taskClass()).isEqualTo(OutboxMySqlConnectorTask.class);
  }
}
