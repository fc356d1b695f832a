package io.outboxrelay.relay.metrics;

import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one throughput line per interval at INFO: events published in the interval and their rate,
 * totals, retries, poison events, lost leases, and the age of the newest published event. Owns one
 * daemon thread; {@link #close()} stops it and logs a final line.
 */
public final class StatsReporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StatsReporter.class);

  private final RelayMetrics metrics;
  private final String context;
  private final Clock clock;
  private final Supplier<String> role;
  private final ScheduledExecutorService timer;
  private RelayMetrics.Snapshot last;
  private long lastNanos;

  /**
   * Starts reporting.
   *
   * @param metrics the counters
   * @param context the log prefix, e.g. {@code relay mode=cdc name=outbox-relay}
   * @param interval the interval
   * @param clock the wall clock, for the age of the newest event
   */
  public StatsReporter(RelayMetrics metrics, String context, Duration interval, Clock clock) {
    this(metrics, context, interval, clock, () -> "");
  }

  /**
   * Starts reporting, with this process's role among several relays at the start of each line.
   *
   * @param metrics the counters
   * @param context the log prefix, e.g. {@code relay mode=cdc name=outbox-relay}
   * @param interval the interval
   * @param clock the wall clock, for the age of the newest event
   * @param role e.g. {@code leader (epoch 3)}; empty for none
   */
  public StatsReporter(
      RelayMetrics metrics, String context, Duration interval, Clock clock, Supplier<String> role) {
    this.role = role;
    this.metrics = metrics;
    this.context = context;
    this.clock = clock;
    this.last = metrics.snapshot();
    this.lastNanos = System.nanoTime();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "relay-stats");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleAtFixedRate(
        this::report, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void report() {
    RelayMetrics.Snapshot now = metrics.snapshot();
    long nowNanos = System.nanoTime();
    double seconds = Math.max(0.001, (nowNanos - lastNanos) / 1e9);
    long delta = now.published() - last.published();
    String age =
        now.lastEventCreatedAt() == null
            ? "n/a"
            : Math.max(0, clock.millis() - now.lastEventCreatedAt().toEpochMilli()) + " ms";
    long batches = now.batches() - last.batches();
    String perBatch =
        batches == 0
            ? "no batches"
            : String.format(
                Locale.ROOT,
                "%d batches, avg %.1f ms to acknowledge, %.1f ms to commit",
                batches,
                (now.publishNanos() - last.publishNanos()) / 1e6 / batches,
                (now.commitNanos() - last.commitNanos()) / 1e6 / batches);
    String r = role.get();
    LOG.info(
        "[{}] {}published {} events in {}s ({}/s; {}); total {}, resent {}, retries {}, poison {},"
            + " lost leases {}; newest published event is {} old",
        context,
        r.isEmpty() ? "" : r + ": ",
        delta,
        String.format(Locale.ROOT, "%.0f", seconds),
        String.format(Locale.ROOT, "%.1f", delta / seconds),
        perBatch,
        now.published(),
        now.resent(),
        now.retries(),
        now.poison(),
        now.leaseLost(),
        age);
    last = now;
    lastNanos = nowNanos;
  }

  /** Stops the timer and logs a final line. Idempotent. */
  @Override
  public void close() {
    if (!timer.isShutdown()) {
      timer.shutdownNow();
      report();
    }
  }
}
