package io.outboxrelay.relay;

/**
 * A failure that stops the relay: an operator must act. The message says what happened and what to
 * do, on one line, and never contains payloads or secrets. The process exits with code 1.
 */
public final class RelayFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the failure.
   *
   * @param message what happened and what to do
   * @param cause the underlying error, or {@code null}
   */
  public RelayFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
