package io.outboxrelay.examples;

import java.io.PrintStream;

/**
 * The demo's console: numbered steps, indented details, and the checks that make it fail when it
 * sees anything else than it describes. Not thread-safe.
 */
final class Report {

  private final PrintStream out;

  Report(PrintStream out) {
    this.out = out;
  }

  /** Prints {@code [n] text}. */
  void step(int n, String text) {
    out.printf("[%d] %s%n", n, text);
  }

  /** Prints an indented detail line, formatted like {@link String#format}. */
  void line(String format, Object... args) {
    out.printf("      " + format + "%n", args);
  }

  /**
   * Fails the demo unless {@code condition} holds.
   *
   * @throws IllegalStateException naming the problem
   */
  static void check(boolean condition, String problem) {
    if (!condition) {
      throw new IllegalStateException("the demo did not see what it expected: " + problem);
    }
  }
}
