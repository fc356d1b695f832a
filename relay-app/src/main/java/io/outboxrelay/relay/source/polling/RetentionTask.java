package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.failure.ErrorClassifier;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes PUBLISHED rows published longer ago than the retention age: a sweep over the PUBLISHED
 * rows in id order, in windows of the batch size, each its own short transaction (see {@link
 * OutboxRetention#deleteOldPublished}); then waits for the next run. DEAD and unpublished rows are
 * never touched. Runs on its own thread; not thread-safe otherwise.
 */
final class RetentionTask implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionTask.class);

  private final String context;
  private final Opener stores;

  /** Opens retention on a connection of its own. */
  @FunctionalInterface
  interface Opener {
    OutboxRetention open() throws SQLException;
  }

  private final Duration age;
  private final int batchSize;
  private final Duration interval;
  private volatile boolean running = true;

  RetentionTask(String context, Opener stores, Duration age, int batchSize, Duration interval) {
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

  /** One sweep; returns how many rows it deleted. */
  long runOnce() throws SQLException {
    OutboxRetention store = stores.open();
    try {
      long total = 0;
      long after = 0;
      while (running) {
        OutboxRetention.RetentionStep step = store.deleteOldPublished(after, age, batchSize);
        total += step.deleted();
        if (step.next() < 0) {
          break;
        }
        after = step.next();
      }
      if (total > 0) {
        LOG.info("[{}] deleted {} published rows older than {}", context, total, age);
      }
      return total;
    } finally {
      store.closeQuietly();
    }
  }
}
