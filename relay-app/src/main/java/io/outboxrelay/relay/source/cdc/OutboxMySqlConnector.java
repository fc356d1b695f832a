package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.mysql.MySqlConnector;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's MySQL connector with a task that hands over change events as soon as they are queued
 * ({@link QueueTap}). Everything else is Debezium's; its task is told Debezium's connector class
 * ({@link DebeziumTaskConfig}).
 */
public class OutboxMySqlConnector extends MySqlConnector {

  /** Creates the connector; the engine instantiates it by class name. */
  public OutboxMySqlConnector() {}

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxMySqlConnectorTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return DebeziumTaskConfig.naming(MySqlConnector.class, super.taskConfigs(maxTasks));
  }
}
