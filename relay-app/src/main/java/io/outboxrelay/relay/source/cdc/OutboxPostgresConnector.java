package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.postgresql.PostgresConnector;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's PostgreSQL connector with a task that hands over change events as soon as they are
 * queued ({@link QueueTap}). Everything else is Debezium's; its task is told Debezium's connector
 * class ({@link DebeziumTaskConfig}).
 */
public class OutboxPostgresConnector extends PostgresConnector {

  /** Creates the connector; the engine instantiates it by class name. */
  public OutboxPostgresConnector() {}

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxPostgresConnectorTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return DebeziumTaskConfig.naming(PostgresConnector.class, super.taskConfigs(maxTasks));
  }
}
