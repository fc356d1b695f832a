package io.outboxrelay.relay.config;

import java.util.List;

/**
 * The configuration is not valid. Carries every problem found, each a one-line message naming the
 * key and saying what to change; the CLI prints them all and exits with code 2.
 */
public final class ConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  /** The problems, one line each. */
  private final List<String> problems;

  /**
   * Creates the exception.
   *
   * @param problems the problems, at least one
   */
  public ConfigException(List<String> problems) {
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
