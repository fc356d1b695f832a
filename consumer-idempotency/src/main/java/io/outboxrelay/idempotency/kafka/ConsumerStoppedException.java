package io.outboxrelay.idempotency.kafka;

/**
 * The consumer stopped at a record it could not process: thrown by {@link IdempotentConsumer#run()}
 * under {@link FailurePolicy#stop()}, when the database stays unreachable, or when a record could
 * not be dead-lettered. The cause is the last failure. Offsets of the records processed before it
 * were committed; this record's was not, so it is delivered again after a restart.
 */
public class ConsumerStoppedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The topic of the record the consumer stopped at. */
  private final String topic;

  /** Its partition. */
  private final int partition;

  /** Its offset. */
  private final long offset;

  /** Its event id, or {@code null} if it had none or one that is not valid UTF-8. */
  private final String eventId;

  ConsumerStoppedException(
      String message, String topic, int partition, long offset, String eventId, Throwable cause) {
    super(message, cause);
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.eventId = eventId;
  }

  /** The topic of the record the consumer stopped at; never {@code null}. */
  public String topic() {
    return topic;
  }

  /** The partition of that record. */
  public int partition() {
    return partition;
  }

  /** The offset of that record. */
  public long offset() {
    return offset;
  }

  /**
   * The event id of that record, {@code null} if it had none or its id header was not valid UTF-8
   * (the message then shows the header's bytes in hex).
   */
  public String eventId() {
    return eventId;
  }
}
