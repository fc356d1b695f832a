package io.outboxrelay.relay.source.cdc;

import io.debezium.config.Configuration;
import io.debezium.pipeline.DataChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The part of the relay's connector tasks that polls through a {@link QueueTap}. Not thread-safe:
 * the engine installs it once and then polls from one thread.
 */
final class TappedPoll {

  /** How long an idle poll waits before handing control back to the engine. */
  static final Duration IDLE_RETURN = Duration.ofMillis(500);

  private volatile QueueTap tap;
  private int maxBatchSize = 2048;

  void install(Object task, Class<?> declaringClass, Configuration config) {
    maxBatchSize = config.getInteger("max.batch.size", maxBatchSize);
    tap = QueueTap.install(task, declaringClass).orElse(null);
  }

  /** The next records, or {@code null} when no tap is installed (use Debezium's poll). */
  List<SourceRecord> poll() throws InterruptedException {
    QueueTap t = tap;
    if (t == null) {
      return null;
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
}
