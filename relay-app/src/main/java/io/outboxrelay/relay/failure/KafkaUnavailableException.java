package io.outboxrelay.relay.failure;

/**
 * Kafka cannot be used at the moment, for a reason that is the relay's and not an event's: the
 * producer cannot be created (for example the bootstrap servers do not resolve). {@link
 * ErrorClassifier} classifies it as {@link Disposition#UNAVAILABLE}.
 */
public final class KafkaUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what could not be done
   * @param cause the underlying error
   */
  public KafkaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
