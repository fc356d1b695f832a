package io.outboxrelay.relay.source.cdc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets a graceful stop wait for the batch in flight without starting another. The engine thread
 * {@link #tryEnter() enters} around each batch; {@link #drain(Duration)} closes the gate and waits
 * for the batch inside to finish. While draining, a batch stuck in retries is asked to give up once
 * the drain deadline has passed. Thread-safe.
 */
final class DrainGate {

  private final ReentrantLock inFlight = new ReentrantLock();
  private volatile boolean draining;
  private volatile long abortAtNanos = Long.MAX_VALUE;

  /**
   * Enters before handling a batch.
   *
   * @return false when draining: the batch must not be published
   */
  boolean tryEnter() {
    if (draining) {
      return false;
    }
    inFlight.lock();
    if (draining) {
      inFlight.unlock();
      return false;
    }
    return true;
  }

  /** Leaves after the batch is handled. */
  void exit() {
    inFlight.unlock();
  }

  /**
   * Closes the gate and waits for the batch in flight.
   *
   * @param timeout how long to wait
   * @return true when no batch is in flight any more
   * @throws InterruptedException when interrupted while waiting
   */
  boolean drain(Duration timeout) throws InterruptedException {
    abortAtNanos = System.nanoTime() + timeout.toNanos();
    draining = true;
    if (inFlight.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      inFlight.unlock();
      return true;
    }
    return false;
  }

  /**
   * Whether a batch retrying a failed send should give up now: the relay is stopping and the drain
   * deadline has passed. What it did not publish is read again after restart.
   *
   * @return true when the batch should give up
   */
  boolean shouldAbandonRetries() {
    return draining && System.nanoTime() - abortAtNanos >= 0;
  }

  /**
   * Whether a stop has begun.
   *
   * @return true when draining
   */
  boolean isDraining() {
    return draining;
  }
}
