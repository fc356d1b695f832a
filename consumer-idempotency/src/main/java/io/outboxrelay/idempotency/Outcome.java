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
  STALE,
  /**
   * The event id was already recorded for this consumer group with another payload hash: two
   * different events were given one id, a producer bug. The handler did not run and nothing
   * changed. Only with the conflict check on ({@link IdempotentProcessor.Builder#conflictCheck()}),
   * and only when both the recorded row and the delivered event have a payload hash; otherwise such
   * an event is a {@link #DUPLICATE}.
   */
  CONFLICT
}
