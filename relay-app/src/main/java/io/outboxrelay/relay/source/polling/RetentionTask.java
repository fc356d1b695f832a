package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.publish.ErrorClassifier;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes PUBLISHED rows older than the retention age, oldest id first, in small batches, each its
 * own short transaction, until a batch deletes fewer rows than it looked at; then waits for the
 * next run. DEAD and unpublished rows are never touched. A batch looks at the lowest-id PUBLISHED
 * rows only, so its cost does not grow with the table; the price is that a row published late (a
 * retried or requeued event) delays the deletion of rows behind it, at most until it is old enough
 * itself. Runs on its own thread; not thread-safe otherwise.
 */
final class RetentionTask implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionTask.class);

  private final String context;
  private final PollingWorker.StoreFactory stores;
  private final Duration age;
  private final int batchSize;
  private final Duration interval;
  private volatile boolean running = true;

  RetentionTask(
      String context,
      PollingWorker.StoreFactory stores,
      Duration age,
      int batchSize,
      Duration interval) {
    this.context = context;
    this.stores = stores;
    this.age = age;
    this.batchSize = batchSize;
    this.interval = interval;
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    while (running) {
      try {
        runOnce();
      } catch (SQLException e) {
        LOG.warn(
            "[{}] deleting old published rows failed ({}); will try again",
            context,
            ErrorClassifier.describe(e));
      }
      long until = System.nanoTime() + interval.toNanos();
      while (running && System.nanoTime() < until) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Deletes until a batch deletes fewer rows than it looked at; returns how many were deleted. */
  long runOnce() throws SQLException {
    OutboxStore store = stores.open();
    try {
      long total = 0;
      int n;
      do {
        n = store.deletePublishedOlderThan(age, batchSize);
        total += n;
      } while (running && n == batchSize);
      if (total > 0) {
        LOG.info("[{}] deleted {} published rows older than {}", context, total, age);
      }
      return total;
    } finally {
      store.closeQuietly();
    }
  }
}
