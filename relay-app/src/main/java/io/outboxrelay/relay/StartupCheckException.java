package io.outboxrelay.relay;

import java.util.List;

/**
 * The source database is not set up the way the chosen mode needs (binlog off, wrong format,
 * missing grants or tables, columns of the wrong type), or the configuration cannot reach it (a
 * refused user, an unknown database, a host that does not resolve). Carries every problem found,
 * one line each, saying what to change. The process exits with code 2.
 */
public final class StartupCheckException extends Exception {

  private static final long serialVersionUID = 1L;

  /** The problems, one line each. */
  private final List<String> problems;

  /**
   * Creates the exception.
   *
   * @param problems the problems, at least one
   */
  public StartupCheckException(List<String> problems) {
    super(String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /**
   * The problems, one line each.
   *
   * @return an unmodifiable list
   */
  public List<String> problems() {
    return problems;
  }
}
