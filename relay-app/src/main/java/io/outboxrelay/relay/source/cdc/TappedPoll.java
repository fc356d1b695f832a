package io.outboxrelay.relay.source.cdc;

import io.debezium.config.Configuration;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.DataChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The part of the relay's connector tasks that polls through a {@link QueueTap} and watches for
 * statement-based changes to the outbox table ({@link StatementGuard}); it also keeps Debezium's
 * metrics from rendering every event as text ({@link EventSummaries}), and the binlog client from
 * reconnecting while the queue is full ({@link BackpressureKeepalive}). Not thread-safe: the engine
 * installs it once, polls from one thread, and {@link #close closes} it when the task stops.
 */
final class TappedPoll {

  /** How long an idle poll waits before handing control back to the engine. */
  static final Duration IDLE_RETURN = Duration.ofMillis(500);

  /** Debezium's own poll of the task, used when no tap could be installed. */
  interface DebeziumPoll {
    List<SourceRecord> poll() throws InterruptedException;
  }

  private volatile QueueTap tap;
  private volatile StatementGuard guard;
  private volatile BackpressureKeepalive keepalive;
  private int maxBatchSize = 2048;

  void install(
      Object task,
      Class<?> declaringClass,
      Configuration config,
      ChangeEventSourceCoordinator<?, ?> coordinator) {
    maxBatchSize = config.getInteger("max.batch.size", maxBatchSize);
    guard = StatementGuard.install(coordinator, config).orElse(null);
    EventSummaries.shorten(coordinator);
    tap = QueueTap.install(task, declaringClass).orElse(null);
    QueueTap t = tap;
    if (t != null) {
      keepalive = BackpressureKeepalive.install(coordinator, t::isFull).orElse(null);
    }
  }

  /**
   * Installs the queue tap and the short event summaries only: for a task that reads no binlog
   * (PostgreSQL's), which has neither statement-based changes nor a binlog client to keep alive.
   */
  void installTap(
      Object task,
      Class<?> declaringClass,
      Configuration config,
      ChangeEventSourceCoordinator<?, ?> coordinator) {
    maxBatchSize = config.getInteger("max.batch.size", maxBatchSize);
    EventSummaries.shorten(coordinator);
    tap = QueueTap.install(task, declaringClass).orElse(null);
  }

  /** Stops the thread of the backpressure keepalive, if one runs; the task is stopping. */
  void close() {
    BackpressureKeepalive k = keepalive;
    if (k != null) {
      k.close();
    }
  }

  /**
   * The next records: from the tap, or from Debezium's poll when no tap is installed.
   *
   * @throws io.outboxrelay.relay.RelayFailure once a statement-based change to the outbox table was
   *     read: nothing queued after it may be published, or its position committed
   */
  List<SourceRecord> poll(DebeziumPoll debezium) throws InterruptedException {
    StatementGuard g = guard;
    if (g != null) {
      g.check();
    }
    List<SourceRecord> records;
    try {
      records = take(debezium);
    } catch (RuntimeException e) {
      if (g != null) {
        g.check(); // Debezium's own error about the same event says less
      }
      throw e;
    }
    if (g != null) {
      // The guard trips on the binlog reader's thread before anything behind the statement is
      // queued; what was taken with it may include such records (a heartbeat past it), so all of it
      // is dropped. The records before the statement come again after a restart.
      g.check();
    }
    return records;
  }

  private List<SourceRecord> take(DebeziumPoll debezium) throws InterruptedException {
    QueueTap t = tap;
    if (t == null) {
      return debezium.poll();
    }
    List<DataChangeEvent> events = t.take(maxBatchSize, IDLE_RETURN);
    List<SourceRecord> records = new ArrayList<>(events.size());
    for (DataChangeEvent e : events) {
      records.add(e.getRecord());
    }
    return records;
  }

  boolean isTapped() {
    return tap != null;
  }

  boolean isGuarded() {
    return guard != null;
  }
}
