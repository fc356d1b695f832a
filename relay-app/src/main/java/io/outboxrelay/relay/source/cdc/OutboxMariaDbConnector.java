package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.mariadb.MariaDbConnector;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's MariaDB connector with a task that hands over change events as soon as they are queued
 * ({@link QueueTap}). Everything else is Debezium's; its task is told Debezium's connector class
 * ({@link DebeziumTaskConfig}).
 */
public class OutboxMariaDbConnector extends MariaDbConnector {

  /** Creates the connector; the engine instantiates it by class name. */
  public OutboxMariaDbConnector() {}

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxMariaDbConnectorTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return DebeziumTaskConfig.naming(MariaDbConnector.class, super.taskConfigs(maxTasks));
  }
}
