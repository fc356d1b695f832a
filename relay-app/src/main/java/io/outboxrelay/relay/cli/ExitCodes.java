package io.outboxrelay.relay.cli;

/** The process exit codes. */
public final class ExitCodes {

  /** Success, including a graceful stop on SIGTERM or SIGINT. */
  public static final int OK = 0;

  /** A fatal runtime error; the log says what to do. */
  public static final int FAILURE = 1;

  /**
   * Bad usage, bad configuration, a source database not set up for the mode, or one that refuses
   * the relay's user or cannot be found (a {@code source.host} or {@code kafka.bootstrap.servers}
   * that does not resolve, after {@code relay.resolve.timeout} for a relay's start).
   */
  public static final int CONFIG = 2;

  private ExitCodes() {}
}
