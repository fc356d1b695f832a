package io.outboxrelay.relay.metrics;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what the relay did since it started. Thread-safe; cheap enough to update per event.
 */
public final class RelayMetrics {

  private final LongAdder published = new LongAdder();
  private final LongAdder resent = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder poison = new LongAdder();
  private final LongAdder leaseLost = new LongAdder();
  private final LongAdder takenOver = new LongAdder();
  private final AtomicLong lastEventCreatedAtMillis = new AtomicLong(-1);
  private final LongAdder batches = new LongAdder();
  private final LongAdder publishNanos = new LongAdder();
  private final LongAdder commitNanos = new LongAdder();

  /** A consistent-enough copy of the counters. */
  public record Snapshot(
      long published,
      long resent,
      long retries,
      long poison,
      long leaseLost,
      Instant lastEventCreatedAt,
      long batches,
      long publishNanos,
      long commitNanos) {}

  /**
   * Counts events Kafka acknowledged.
   *
   * @param n how many
   */
  public void published(int n) {
    published.add(n);
  }

  /**
   * Counts events sent again although Kafka had acknowledged them (duplicates in Kafka).
   *
   * @param n how many
   */
  public void resent(int n) {
    resent.add(n);
  }

  /** Counts one retry after a transient failure. */
  public void retry() {
    retries.increment();
  }

  /** Counts one event that retrying cannot publish. */
  public void poison() {
    poison.increment();
  }

  /**
   * Counts events whose lease another worker took before this one finished.
   *
   * @param n how many
   */
  public void leaseLost(int n) {
    leaseLost.add(n);
  }

  /**
   * Counts events this process took over from a claim whose lease had expired.
   *
   * @param n how many
   */
  public void takenOver(int n) {
    takenOver.add(n);
  }

  /**
   * How many events this process took over from expired leases since it started.
   *
   * @return the count
   */
  public long takenOver() {
    return takenOver.sum();
  }

  /**
   * Remembers when the latest published event was created, for the lag figure.
   *
   * @param createdAt the event's creation time, or {@code null} when unknown
   */
  public void observeCreatedAt(Instant createdAt) {
    if (createdAt != null) {
      lastEventCreatedAtMillis.accumulateAndGet(createdAt.toEpochMilli(), Math::max);
    }
  }

  /**
   * Records one batch: how long sending it until the last acknowledgement took, and how long
   * committing its position (or finishing its rows) took.
   *
   * @param publishNanos send until all acknowledged
   * @param commitNanos the position commit or the finishing statement
   */
  public void batch(long publishNanos, long commitNanos) {
    batches.increment();
    this.publishNanos.add(publishNanos);
    this.commitNanos.add(commitNanos);
  }

  /**
   * Reads the counters.
   *
   * @return the current values
   */
  public Snapshot snapshot() {
    long created = lastEventCreatedAtMillis.get();
    return new Snapshot(
        published.sum(),
        resent.sum(),
        retries.sum(),
        poison.sum(),
        leaseLost.sum(),
        created < 0 ? null : Instant.ofEpochMilli(created),
        batches.sum(),
        publishNanos.sum(),
        commitNanos.sum());
  }
}
