package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.failure.ErrorClassifier;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The net under the floors of the claims' sweeps ({@link ClaimSweep}), off the claims' path: every
 * {@link #PERIOD}, on a thread and a connection of its own, it reads the lowest unsettled id from
 * the first row, and every worker's sweeps lower their floor to it at their next start (each once
 * per check). It finds the rows whose ids were allocated out of commit order in ways a snapshot
 * does not show (a sequence with a cache per session, a transaction that took an id and had not
 * written yet), which then go at most one period and one sweep later.
 *
 * <p>Its read walks the index from the first row, so it reads every index entry that VACUUM could
 * not remove yet: seconds of work when something holds the xmin horizon back over a busy table. A
 * claim that did the same (as each worker's sweep once did, once a minute) held its batch for as
 * long; this thread holds nothing any claim waits for.
 *
 * <p>Thread-safe: one thread {@link #run runs} it, the workers read {@link #latest}.
 */
final class FloorCheck implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(FloorCheck.class);

  /** How often the relay's check reads from the first row. */
  static final Duration PERIOD = Duration.ofMinutes(1);

  /**
   * How long without a successful check before the relay's sweeps make the read themselves again
   * (each worker once a {@link #period}, as before the check existed): the net must not fail
   * silently.
   */
  static final Duration STALE = PERIOD.multipliedBy(5);

  /** Failed checks in a row before one WARN (then DEBUG again until a check succeeds). */
  private static final int WARN_AFTER = 3;

  /**
   * What one check found. A new object per check: a sweep applies each once.
   *
   * @param lowest the lowest unsettled id, {@code Long.MAX_VALUE} when there was none
   */
  record Found(long lowest) {}

  private final String context;
  private final StoreFactory stores;
  private final Duration period;
  private final Duration stale;
  private volatile Found latest;

  /** {@link System#nanoTime()} of the last successful check, or of the creation. */
  private volatile long lastSuccess = System.nanoTime();

  private volatile boolean running = true;
  private OutboxStore store;
  private int failures;

  /**
   * @param context the relay's log context
   * @param stores opens the check's own store (again after a failure)
   * @param period how often it checks ({@link #PERIOD} in the relay)
   * @param stale how long without a successful check before the sweeps read from the first row
   *     themselves ({@link #STALE} in the relay)
   */
  FloorCheck(String context, StoreFactory stores, Duration period, Duration stale) {
    this.context = context;
    this.stores = stores;
    this.period = period;
    this.stale = stale;
  }

  /** How often it checks; a stale check's sweeps read from the first row as often. */
  Duration period() {
    return period;
  }

  /** What the last check found; null before the first. */
  Found latest() {
    return latest;
  }

  /**
   * Reads the lowest unsettled id on a store, in a transaction of its own, and hands it to the
   * sweeps.
   *
   * @param on the store to read with (not one a claim is using)
   * @throws SQLException when the read fails; the sweeps keep what they had
   */
  void check(OutboxStore on) throws SQLException {
    latest = new Found(on.lowestUnsettled());
    lastSuccess = System.nanoTime();
  }

  /**
   * Whether no check has succeeded for the stale bound: the thread fails (or was never started),
   * and the sweeps read from the first row themselves.
   *
   * @param now {@link System#nanoTime()}
   */
  boolean stale(long now) {
    return now - lastSuccess > stale.toNanos();
  }

  /** Stops the checks after the one in progress. */
  void stop() {
    running = false;
  }

  @Override
  public void run() {
    try {
      while (running) {
        Thread.sleep(period.toMillis());
        if (running) {
          checkOnce();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeStore();
    }
  }

  private void checkOnce() {
    try {
      if (store == null) {
        store = stores.open();
      }
      check(store);
      failures = 0;
    } catch (SQLException | RuntimeException e) {
      closeStore();
      // The workers report a database outage; here it means the floors wait for the next check,
      // and once stale the sweeps read from the first row themselves.
      failures++;
      String reason = e instanceof SQLException sql ? ErrorClassifier.describe(sql) : e.toString();
      if (failures == WARN_AFTER) {
        LOG.warn(
            "[{}] the check for unsettled rows below the claims' floor failed {} times in a row"
                + " ({}); trying again every {} s; after {} s without one, each worker's claims"
                + " read from the first row every {} s instead",
            context,
            failures,
            reason,
            period.toSeconds(),
            stale.toSeconds(),
            period.toSeconds());
      } else {
        LOG.debug(
            "[{}] the check for unsettled rows below the claims' floor failed ({}), {} in a row",
            context,
            reason,
            failures);
      }
    }
  }

  private void closeStore() {
    if (store != null) {
      store.closeQuietly();
      store = null;
    }
  }
}
