package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.mariadb.MariaDbConnector;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's MariaDB connector with a task that hands over change events as soon as they are queued
 * ({@link QueueTap}). Everything else is Debezium's.
 */
public class OutboxMariaDbConnector extends MariaDbConnector {

  /** Creates the connector; the engine instantiates it by class name. */
  public OutboxMariaDbConnector() {}

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxMariaDbConnectorTask.class;
  }
}
