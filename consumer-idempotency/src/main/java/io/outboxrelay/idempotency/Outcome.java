package io.outboxrelay.idempotency;

/** What {@link IdempotentProcessor#process(EventRef, EventHandler)} did with one event. */
public enum Outcome {
  /** The event was new: the handler ran and its changes committed together with the event id. */
  PROCESSED,
  /** The event id was already recorded for this consumer group: the handler did not run. */
  DUPLICATE,
  /**
   * The event was new but its aggregate version was not newer than the last one applied: the
   * handler did not run, the event id was recorded (a redelivery is then a {@link #DUPLICATE}).
   */
  STALE
}
