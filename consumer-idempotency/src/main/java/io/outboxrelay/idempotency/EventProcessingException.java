package io.outboxrelay.idempotency;

/**
 * Processing one event failed with a checked exception (an {@link java.sql.SQLException} of the
 * database or a checked exception of the handler), which is the cause. The transaction was rolled
 * back: neither the event id nor the business change is stored, unless the failure happened while
 * committing and the outcome of the commit is unknown (then a retry finds the event a {@link
 * Outcome#DUPLICATE} if the commit took effect).
 */
public class EventProcessingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The event that failed. */
  private final String eventId;

  /**
   * Creates the exception.
   *
   * @param eventId the event that failed; not {@code null}
   * @param message what failed
   * @param cause the failure; may be {@code null}
   */
  public EventProcessingException(String eventId, String message, Throwable cause) {
    super(message, cause);
    this.eventId = eventId;
  }

  /** The id of the event that failed; never {@code null}. */
  public String eventId() {
    return eventId;
  }
}
