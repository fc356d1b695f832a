package io.outboxrelay.relay.source.cdc;

import io.debezium.config.Configuration;
import io.debezium.connector.mariadb.MariaDbConnectorTask;
import io.debezium.connector.mariadb.MariaDbOffsetContext;
import io.debezium.connector.mariadb.MariaDbPartition;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/** Debezium's MariaDB task, polling through a {@link TappedPoll}. */
public class OutboxMariaDbConnectorTask extends MariaDbConnectorTask {

  private final TappedPoll poll = new TappedPoll();

  /** Creates the task; the engine instantiates it by class. */
  public OutboxMariaDbConnectorTask() {}

  @Override
  protected ChangeEventSourceCoordinator<MariaDbPartition, MariaDbOffsetContext> start(
      Configuration config) {
    ChangeEventSourceCoordinator<MariaDbPartition, MariaDbOffsetContext> coordinator =
        super.start(config);
    poll.install(this, MariaDbConnectorTask.class, config, coordinator);
    return coordinator;
  }

  @Override
  protected void doStop() {
    poll.close();
    super.doStop();
  }

  @Override
  protected List<SourceRecord> doPoll() throws InterruptedException {
    return poll.poll(super::doPoll);
  }
}
