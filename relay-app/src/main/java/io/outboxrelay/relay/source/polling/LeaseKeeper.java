package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.failure.ErrorClassifier;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of the batches in flight in one relay process, so that a lease can be short: a
 * dead process's events wait for one lease, not for the longest publish. Every {@link #TICK} it
 * extends, for each batch held for a renewal period or more, {@code processing_until} of the rows
 * its claim still owns to the database's now plus {@code polling.lease}, in one short transaction
 * on a connection of its own (so a renewal never waits for a worker's statement).
 *
 * <p>The renewal period is a quarter of the lease: a renewal can fail twice and the lease still
 * holds. A batch published within one period (the usual case) is never renewed, so renewing costs
 * the database nothing while Kafka acknowledges promptly, and nothing while the table is idle; a
 * batch that waits for Kafka costs one update of its rows by primary key per period.
 *
 * <p>A renewal that finds fewer rows than the batch has means another worker took them over: this
 * process's lease had expired (it was frozen, or could not reach the database for a lease). The
 * batch is marked {@link Lease#lost() lost}, so its worker stops waiting for Kafka; its fenced
 * finish then leaves those rows to their new owner, and counts them.
 *
 * <p>Thread-safe: workers {@link #hold} and {@link #end} leases; one thread {@link #run runs} the
 * renewals.
 */
final class LeaseKeeper implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

  /** How often the keeper looks for leases due for renewal. */
  static final Duration TICK = Duration.ofMillis(500);

  /** The lease of one batch in flight. */
  static final class Lease {
    private final String worker;
    private final String token;
    private final List<Long> ids;
    private long renewedAt;
    private long expiresAt;
    private boolean ended;
    private boolean lost;

    private Lease(String worker, String token, List<Long> ids, long claimedAt, long leaseNanos) {
      this.worker = worker;
      this.token = token;
      this.ids = ids;
      this.renewedAt = claimedAt;
      this.expiresAt = claimedAt + leaseNanos;
    }

    /**
     * When, in {@link System#nanoTime()}, the lease expires at the earliest: the start of the
     * statement that set it plus the lease (the database's now came later).
     */
    synchronized long expiresAt() {
      return expiresAt;
    }

    /** Whether a renewal found rows of the batch taken over by another worker. */
    synchronized boolean lost() {
      return lost;
    }
  }

  private final String context;
  private final Duration lease;
  private final long periodNanos;
  private final StoreFactory stores;
  private final Set<Lease> held = ConcurrentHashMap.newKeySet();
  private volatile boolean running = true;
  private OutboxStore store;
  private int failures;

  LeaseKeeper(String context, Duration lease, StoreFactory stores) {
    this.context = context;
    this.lease = lease;
    this.periodNanos = period(lease).toNanos();
    this.stores = stores;
  }

  /** How often a batch in flight has its lease renewed: a quarter of the lease. */
  static Duration period(Duration lease) {
    return lease.dividedBy(4);
  }

  /**
   * Starts renewing the lease of a claim.
   *
   * @param worker the worker's name, for log lines
   * @param token the claim token
   * @param ids the claimed rows
   * @param claimedAt {@link System#nanoTime()} before the claim's transaction started
   * @return the lease; {@link #end} it before finishing the batch
   */
  Lease hold(String worker, String token, List<Long> ids, long claimedAt) {
    Lease l = new Lease(worker, token, List.copyOf(ids), claimedAt, lease.toNanos());
    held.add(l);
    return l;
  }

  /**
   * Stops renewing a lease; waits for a renewal of it in progress, so that no renewal runs after
   * the batch's finish (it would find the rows released and take them for taken over).
   */
  void end(Lease l) {
    synchronized (l) {
      l.ended = true;
    }
    held.remove(l);
  }

  /** Stops the keeper after the renewal in progress. */
  void stop() {
    running = false;
  }

  @Override
  public void run() {
    try {
      while (running) {
        for (Lease l : held) {
          if (!running) {
            break;
          }
          renewIfDue(l);
        }
        Thread.sleep(TICK.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeStore();
    }
  }

  private void renewIfDue(Lease l) {
    synchronized (l) {
      long now = System.nanoTime();
      if (l.ended || l.lost || now - l.renewedAt < periodNanos) {
        return;
      }
      try {
        if (store == null) {
          store = stores.open();
        }
        int owned = store.renew(l.token, l.ids, lease);
        failures = 0;
        l.renewedAt = now;
        l.expiresAt = now + lease.toNanos();
        if (owned < l.ids.size()) {
          l.lost = true;
          LOG.warn(
              "[{}] {}: {} of the {} events of its batch were taken over by another worker: its"
                  + " lease had expired (this process was frozen, or could not reach the database,"
                  + " for more than polling.lease={} s); it does not finish them",
              context,
              l.worker,
              l.ids.size() - owned,
              l.ids.size(),
              lease.toSeconds());
        }
      } catch (SQLException e) {
        closeStore();
        // The workers report a database outage; here it only means the lease is not extended.
        LOG.debug(
            "[{}] renewing the lease of {}'s batch failed ({}), {} in a row",
            context,
            l.worker,
            ErrorClassifier.describe(e),
            ++failures);
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
