package io.outboxrelay.router;

import java.util.Objects;

/**
 * An event that cannot be routed: for example its values make a topic name Kafka does not accept,
 * or its payload is NULL. Retrying cannot fix it; the relay treats the event as poison. The message
 * names the event and says what is wrong, and never contains the payload. {@link #reason()} tells
 * callers which kind of problem it is, so they can say what to change.
 */
public final class RoutingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Which kind of problem makes an event unroutable. */
  public enum Reason {
    /** The event's values, put into the topic template, make a topic name Kafka refuses. */
    ILLEGAL_TOPIC,
    /** The payload is NULL: its record would be a tombstone. */
    NULL_PAYLOAD,
    /** The row itself is not an outbox event: a required column or value is missing. */
    MALFORMED_ROW,
    /** The application headers break the headers column's contract ({@link ApplicationHeaders}). */
    INVALID_HEADERS,
    /**
     * The trace context column is not a W3C trace context in properties text ({@link
     * TraceContext}).
     */
    INVALID_TRACE_CONTEXT
  }

  private final Reason reason;

  /**
   * Creates the exception for a malformed row ({@link Reason#MALFORMED_ROW}).
   *
   * @param message what is wrong and what to change
   */
  public RoutingException(String message) {
    this(Reason.MALFORMED_ROW, message);
  }

  /**
   * Creates the exception.
   *
   * @param reason which kind of problem it is; never null
   * @param message what is wrong and what to change
   */
  public RoutingException(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * Which kind of problem it is.
   *
   * @return the reason; never null
   */
  public Reason reason() {
    return reason;
  }
}
