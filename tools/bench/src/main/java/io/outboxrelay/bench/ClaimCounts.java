package io.outboxrelay.bench;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the workers of one claim strategy did: statements sent (every round trip, COMMIT included),
 * the wasted ones, and rows claimed and published. Thread-safe.
 */
final class ClaimCounts {

  private final LongAdder statements = new LongAdder();
  private final LongAdder wasted = new LongAdder();
  private final LongAdder emptyClaims = new LongAdder();
  private final LongAdder deadlocks = new LongAdder();
  private final LongAdder claimed = new LongAdder();
  private final LongAdder published = new LongAdder();

  /** Statements that did useful work. */
  void statements(int n) {
    statements.add(n);
  }

  /** Statements that achieved nothing: a lost race, a claim that found no free row. */
  void wasted(int n) {
    statements.add(n);
    wasted.add(n);
  }

  /** A claim that got no row while rows were still PENDING. */
  void emptyClaim() {
    emptyClaims.increment();
  }

  /** A claim transaction chosen as a deadlock victim and rolled back. */
  void deadlock() {
    deadlocks.increment();
  }

  void claimed(int rows) {
    claimed.add(rows);
  }

  void published(int rows) {
    published.add(rows);
  }

  long statements() {
    return statements.sum();
  }

  long wasted() {
    return wasted.sum();
  }

  long emptyClaims() {
    return emptyClaims.sum();
  }

  long deadlocks() {
    return deadlocks.sum();
  }

  long claimed() {
    return claimed.sum();
  }

  long published() {
    return published.sum();
  }
}
