package io.outboxrelay.relay.failure;

/** What to do about a failure, as decided by {@link ErrorClassifier}. */
public enum Disposition {
  /**
   * Transient, and possibly this event's own: try again later, counting an attempt (a timeout, the
   * topic's metadata missing, a deadlock, a lost database connection). Whether Kafka as a whole
   * answers decides whether a Kafka timeout is the event's: see {@link #UNAVAILABLE}.
   */
  RETRY,
  /**
   * Kafka cannot be reached or cannot take writes for a while (a broker down or unreachable, a
   * partition without a leader or without enough replicas, a producer that cannot be created): the
   * relay's problem, not the event's. Try again once Kafka is back, without counting an attempt.
   */
  UNAVAILABLE,
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
