package io.outboxrelay.relay.admin;

/**
 * An operator command could not do what was asked: one line for the operator, saying what to do,
 * and the process exit code ({@code 2} for bad arguments, configuration or database setup, {@code
 * 1} for a runtime failure). When it is thrown, nothing was changed.
 */
public final class AdminException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Exit code of bad usage, configuration or database setup, as for {@code run}. */
  public static final int USAGE = 2;

  /** Exit code of a runtime failure, as for {@code run}. */
  public static final int FAILURE = 1;

  private final int exitCode;

  private AdminException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /**
   * A bad argument or setup: exit code 2.
   *
   * @param message one line saying what is wrong and what to do
   * @return the exception
   */
  public static AdminException usage(String message) {
    return new AdminException(USAGE, message, null);
  }

  /**
   * A bad setup found through a failure: exit code 2.
   *
   * @param message one line saying what is wrong and what to do
   * @param cause the failure
   * @return the exception
   */
  public static AdminException usage(String message, Throwable cause) {
    return new AdminException(USAGE, message, cause);
  }

  /**
   * A runtime failure: exit code 1.
   *
   * @param message one line saying what failed and what to do
   * @param cause the failure, or null
   * @return the exception
   */
  public static AdminException failure(String message, Throwable cause) {
    return new AdminException(FAILURE, message, cause);
  }

  /**
   * The exit code the command ends with.
   *
   * @return 1 or 2
   */
  public int exitCode() {
    return exitCode;
  }
}
