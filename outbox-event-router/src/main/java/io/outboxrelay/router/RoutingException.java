package io.outboxrelay.router;

/**
 * An event that cannot be routed: for example its values make a topic name Kafka does not accept.
 * Retrying cannot fix it; the relay treats the event as poison. The message names the event and
 * says what is wrong, and never contains the payload.
 */
public final class RoutingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong and what to change
   */
  public RoutingException(String message) {
    super(message);
  }
}
