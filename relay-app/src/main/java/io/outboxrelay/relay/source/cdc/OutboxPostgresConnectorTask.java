package io.outboxrelay.relay.source.cdc;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorTask;
import io.debezium.connector.postgresql.PostgresOffsetContext;
import io.debezium.connector.postgresql.PostgresPartition;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's PostgreSQL task, polling through a {@link TappedPoll} that holds only the queue tap
 * and the short event summaries: the statement guard and the backpressure keepalive are for the
 * binlog reader. Each start first checks the replication slot ({@link SlotGuard}): Debezium would
 * make a new one in place of a dropped slot and stream from now.
 *
 * <p>Its {@code poll()} (Debezium's, final) first flushes to the replication slot the position the
 * engine last committed, then calls {@link #doPoll}: {@code confirmed_flush_lsn} therefore follows
 * the position store, which only ever holds positions of events Kafka acknowledged.
 */
public class OutboxPostgresConnectorTask extends PostgresConnectorTask {

  private final TappedPoll poll = new TappedPoll();

  /** Creates the task; the engine instantiates it by class. */
  public OutboxPostgresConnectorTask() {}

  @Override
  public ChangeEventSourceCoordinator<PostgresPartition, PostgresOffsetContext> start(
      Configuration config) {
    SlotGuard.check(
        config,
        context
            .offsetStorageReader()
            .offset(java.util.Map.of("server", config.getString("topic.prefix"))));
    ChangeEventSourceCoordinator<PostgresPartition, PostgresOffsetContext> coordinator =
        super.start(config);
    poll.installTap(this, PostgresConnectorTask.class, config, coordinator);
    return coordinator;
  }

  @Override
  protected void doStop() {
    poll.close();
    super.doStop();
  }

  @Override
  public List<SourceRecord> doPoll() throws InterruptedException {
    return poll.poll(super::doPoll);
  }
}
