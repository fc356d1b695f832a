package io.outboxrelay.relay.publish;

/** What to do about a failure, as decided by {@link ErrorClassifier}. */
public enum Disposition {
  /** Transient: try again later (broker unavailable, timeout, deadlock, lost connection). */
  RETRY,
  /**
   * Retrying cannot fix this event (too large, illegal topic, not authorised for the topic,
   * unroutable): it is poison. Other events are not affected.
   */
  DEAD,
  /**
   * Retrying cannot fix the relay itself (authentication, cluster authorisation, purged binlog,
   * missing grants): an operator must act; stop.
   */
  STOP
}
