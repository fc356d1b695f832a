package io.outboxrelay.relay.source.cdc.leader;

import java.time.Duration;

/**
 * One term as leader, as seen by the publishing thread: the epoch, and the moment, on the JVM's
 * monotonic clock, after which this process can no longer be sure it still holds the lease.
 *
 * <p>Why a monotonic deadline and not the database's expiry: a leader that cannot reach the
 * database, or whose process was paused ({@code SIGSTOP}, a long GC), cannot ask. It only knows
 * that its last successful renewal started at a given {@link System#nanoTime()}, and that the
 * database computed the expiry after that. So the leadership surely has not expired before {@code
 * start + lease}; the relay stops publishing a margin earlier. After a pause the first comparison
 * fails, whatever the pause did to the wall clock.
 *
 * <p>Thread-safe: the election loop extends it, the publishing thread reads it with one volatile
 * read and a comparison.
 */
public final class Tenure {

  private final long epoch;
  private final long validNanos;
  private volatile long deadlineNanos;
  private volatile boolean ended;

  /**
   * Starts a term.
   *
   * @param epoch the epoch the leadership was taken with
   * @param renewalStartNanos {@link System#nanoTime()} just before the statement that took it
   * @param valid how long after the start of a successful renewal publishing may go on: {@code
   *     cdc.leader.lease} minus a safety margin
   */
  public Tenure(long epoch, long renewalStartNanos, Duration valid) {
    this.epoch = epoch;
    this.validNanos = valid.toNanos();
    this.deadlineNanos = renewalStartNanos + validNanos;
  }

  /**
   * The epoch of this term.
   *
   * @return the epoch
   */
  public long epoch() {
    return epoch;
  }

  /**
   * Records a successful renewal. Does not revive a term that ended: once the publishing thread saw
   * the deadline pass it dropped a batch, and its engine must be stopped.
   *
   * @param renewalStartNanos {@link System#nanoTime()} just before the renewal statement
   */
  synchronized void renewed(long renewalStartNanos) {
    long d = renewalStartNanos + validNanos;
    if (!ended && System.nanoTime() - deadlineNanos < 0 && d - deadlineNanos > 0) {
      deadlineNanos = d;
    }
  }

  /** Ends the term at once: the leadership was lost or given up. */
  void end() {
    ended = true;
  }

  /**
   * Whether this process may still publish: the term has not ended and its deadline has not passed.
   * Once false, false for good. Cheap: meant to be asked before every send to Kafka.
   *
   * @return true while publishing is safe
   */
  public boolean mayPublish() {
    if (ended) {
      return false;
    }
    if (System.nanoTime() - deadlineNanos >= 0) {
      ended = true;
      return false;
    }
    return true;
  }

  /**
   * Nanoseconds until the deadline; negative once it passed.
   *
   * @return the time left
   */
  long nanosLeft() {
    return deadlineNanos - System.nanoTime();
  }
}
