package io.outboxrelay.relay.source.cdc;

import io.debezium.config.Configuration;
import io.debezium.connector.mysql.MySqlConnectorTask;
import io.debezium.connector.mysql.MySqlOffsetContext;
import io.debezium.connector.mysql.MySqlPartition;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/** Debezium's MySQL task, polling through a {@link TappedPoll}. */
public class OutboxMySqlConnectorTask extends MySqlConnectorTask {

  private final TappedPoll poll = new TappedPoll();

  /** Creates the task; the engine instantiates it by class. */
  public OutboxMySqlConnectorTask() {}

  @Override
  public ChangeEventSourceCoordinator<MySqlPartition, MySqlOffsetContext> start(
      Configuration config) {
    ChangeEventSourceCoordinator<MySqlPartition, MySqlOffsetContext> coordinator =
        super.start(config);
    poll.install(this, MySqlConnectorTask.class, config, coordinator);
    return coordinator;
  }

  @Override
  public void doStop() {
    poll.close();
    super.doStop();
  }

  @Override
  public List<SourceRecord> doPoll() throws InterruptedException {
    return poll.poll(super::doPoll);
  }
}
