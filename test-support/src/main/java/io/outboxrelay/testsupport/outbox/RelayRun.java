package io.outboxrelay.testsupport.outbox;

import java.time.Duration;
import java.util.List;

/**
 * One run of {@code outbox-relay <args>} as a test sees it: its log, its readiness, a graceful stop
 * and its exit code. A {@link RelayProcess} is one, a child process that a test may also kill or
 * freeze; relay-app's tests also run the command in their own JVM, which starts in a fraction of a
 * child's CPU, where nothing kills or freezes it.
 */
public interface RelayRun extends AutoCloseable {

  /** The name the run was started under (its log file's name). */
  String name();

  /**
   * Waits for the ready line.
   *
   * @throws RuntimeException when it does not appear within 90 s or the run ends first, with the
   *     log's tail
   */
  void awaitReady();

  /**
   * Waits until the run logs a line that contains a match of {@code regex}.
   *
   * @param regex a regular expression found anywhere in the line
   * @param timeout how long to wait
   * @return the first matching line
   * @throws RuntimeException on timeout or when the run ends first, with the log's tail
   */
  String awaitLogLine(String regex, Duration timeout);

  /** The whole log so far, the lines the operator would see on the console. */
  String log();

  /**
   * The lines of the log that belong to a stack trace: a frame ({@code \tat ...}), a cause or a
   * folded tail. The console should show none: stack traces are logged at DEBUG only.
   *
   * @return the lines, empty when the log has no stack trace
   */
  default List<String> stackTraceLines() {
    return log()
        .lines()
        .filter(l -> l.startsWith("\tat ") || l.startsWith("Caused by:") || l.startsWith("\t..."))
        .toList();
  }

  /** Asks the run to stop gracefully, as SIGTERM does; returns at once. */
  void terminate();

  /** Whether the run has not ended yet. */
  boolean isAlive();

  /**
   * Waits for the run to end.
   *
   * @param timeout how long to wait
   * @return the exit code
   * @throws RuntimeException when it is still running after the timeout
   */
  int waitFor(Duration timeout);

  /**
   * Stops the run if it has not ended, as {@link #terminate()} does; a child process that does not
   * end in time is then killed, a run in the test JVM is reported. Idempotent.
   */
  @Override
  void close();
}
