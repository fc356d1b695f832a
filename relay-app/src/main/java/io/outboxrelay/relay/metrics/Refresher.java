package io.outboxrelay.relay.metrics;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the periodic checks that feed the gauges and the health state (a Kafka probe, the source's
 * backlog query), each at a fixed delay after the previous run, so that a scrape only reads cached
 * values. Owns two daemon threads: a slow check (a Kafka probe waiting for its timeout) does not
 * hold up the other. Thread-safe; {@link #close()} is idempotent.
 */
public final class Refresher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Refresher.class);

  /** One periodic check. It reports what it finds itself; a thrown exception is logged at DEBUG. */
  @FunctionalInterface
  public interface Check {
    /**
     * Runs the check once.
     *
     * @throws Exception when the check failed in a way it did not report itself
     */
    void run() throws Exception;
  }

  private final String context;
  private final ScheduledExecutorService timer =
      Executors.newScheduledThreadPool(
          2,
          r -> {
            Thread t = new Thread(r, "relay-health");
            t.setDaemon(true);
            return t;
          });

  /**
   * Creates a refresher with no checks.
   *
   * @param context the log prefix
   */
  public Refresher(String context) {
    this.context = context;
  }

  /**
   * Schedules a check: at once, then every {@code every} after the previous run ended.
   *
   * @param name what the check is, for the DEBUG line of a failure
   * @param every the delay between two runs
   * @param check the check
   */
  public void every(String name, Duration every, Check check) {
    timer.scheduleWithFixedDelay(
        () -> {
          try {
            check.run();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (Exception e) {
            LOG.debug("[{}] {} failed: {}", context, name, e.toString());
          }
        },
        0,
        every.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** Stops the checks; one that runs is interrupted and waited for (a second at most). */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
