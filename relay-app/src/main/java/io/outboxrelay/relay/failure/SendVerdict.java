package io.outboxrelay.relay.failure;

/**
 * What becomes of one event after its send, from Kafka's answer: the one reading of a publish
 * outcome that both sources share. Only an acknowledged event is ever marked done; a failure that
 * may pass is sent again (counting an attempt, unless Kafka or the event's partition could not take
 * writes); poison is the event's for good; a refusal of the relay itself stops it.
 */
public enum SendVerdict {
  /** Kafka acknowledged the event: it may be marked published. */
  PUBLISHED,
  /** A failure that may pass and may be the event's own: send again, counting an attempt. */
  RETRY,
  /**
   * Kafka, or the event's partition, could not take writes ({@link Disposition#UNAVAILABLE}): send
   * again without counting an attempt.
   */
  UNAVAILABLE,
  /** Poison: this event can never be published as it is. */
  DEAD,
  /** Kafka refused the relay itself: an operator must act; stop. */
  STOP;

  /**
   * The verdict on one send.
   *
   * @param error the send's failure; {@code null} when Kafka acknowledged it
   * @return the verdict
   */
  public static SendVerdict of(Throwable error) {
    if (error == null) {
      return PUBLISHED;
    }
    return switch (ErrorClassifier.classify(error)) {
      case RETRY -> RETRY;
      case UNAVAILABLE -> UNAVAILABLE;
      case DEAD -> DEAD;
      case STOP -> STOP;
    };
  }

  /**
   * Whether the event is sent again: a failure that may pass.
   *
   * @return true for {@link #RETRY} and {@link #UNAVAILABLE}
   */
  public boolean sendsAgain() {
    return this == RETRY || this == UNAVAILABLE;
  }

  /**
   * Whether the sending of the events queued after this one must stop at once, so that nothing
   * reaches Kafka before it: always when the relay stops, and for poison when poison stops the
   * relay.
   *
   * @param poisonStops whether a poison event stops the relay (CDC with {@code
   *     cdc.poison.action=fail})
   * @return true when nothing after this event may be sent
   */
  public boolean stopsTheRest(boolean poisonStops) {
    return this == STOP || (this == DEAD && poisonStops);
  }
}
