package io.outboxrelay.idempotency.kafka;

/**
 * A record that cannot succeed however often it is tried: no event id header, an event id (or
 * aggregate header) that is not valid UTF-8, a malformed version header, an event id already
 * processed with another payload ({@link io.outboxrelay.idempotency.Outcome#CONFLICT}; the message
 * starts with {@code event id conflict:}), or a handler that says so by throwing this. It goes
 * straight to the {@link FailurePolicy}, without retries.
 */
public class PoisonRecordException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message why the record cannot be processed; shown in logs and dead-letter headers, so
   *     never include the payload
   */
  public PoisonRecordException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message why the record cannot be processed (never the payload)
   * @param cause the underlying failure; may be {@code null}
   */
  public PoisonRecordException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The failure of an event whose id was already processed with another payload ({@link
   * io.outboxrelay.idempotency.Outcome#CONFLICT}), as every consumer of this library reports it:
   * the message starts with {@code event id conflict:} and says what to do.
   *
   * @param eventId the event id, or {@code null} if unknown
   * @return the exception
   */
  public static PoisonRecordException conflict(String eventId) {
    return new PoisonRecordException(
        "event id conflict: an event with id "
            + eventId
            + " was already processed with another payload (the SHA-256 of this record's value"
            + " differs from the one recorded with the id): two events were given one id. The"
            + " producer must give every event its own id; publish this one again under a new id"
            + " to apply it");
  }
}
