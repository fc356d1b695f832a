package io.outboxrelay.idempotency;

/**
 * What the per-aggregate version check does with an event whose version skips ahead (greater than
 * the last applied version plus one), which means an earlier event has not been applied yet.
 */
public enum GapPolicy {
  /** Apply the event anyway; the skipped versions become stale if they arrive later. */
  ACCEPT,
  /**
   * Roll back and throw {@link VersionGapException}, a retriable failure: the event is retried
   * later, when the missing versions may have been applied.
   */
  REJECT
}
