package io.outboxrelay.testsupport.stack;

/**
 * A local-stack component could not be started, stopped or used. The message says what failed and,
 * where there is one, includes the tail of the component's log.
 *
 * <p>Unchecked because tests cannot do anything useful with it except fail.
 */
public final class LocalStackException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message.
   *
   * @param message what failed and what to do about it
   */
  public LocalStackException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message what failed and what to do about it
   * @param cause the underlying failure, may be {@code null}
   */
  public LocalStackException(String message, Throwable cause) {
    super(message, cause);
  }
}
