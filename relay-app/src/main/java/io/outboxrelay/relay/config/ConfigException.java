package io.outboxrelay.relay.config;

import java.util.List;

/**
 * The configuration is not valid. Carries every problem found, each a one-line message naming the
 * key and saying what to change, and the warnings found on the way (a key given twice may be why a
 * value is wrong); the CLI prints them all and exits with code 2.
 */
public final class ConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  /** The problems, one line each. */
  private final List<String> problems;

  /** The warnings, one line each. */
  private final List<String> warnings;

  /**
   * Creates the exception.
   *
   * @param problems the problems, at least one
   */
  public ConfigException(List<String> problems) {
    this(problems, List.of());
  }

  /**
   * Creates the exception with warnings.
   *
   * @param problems the problems, at least one
   * @param warnings what is suspicious but not wrong, one line each
   */
  public ConfigException(List<String> problems, List<String> warnings) {
    super(String.join("; ", problems));
    this.problems = List.copyOf(problems);
    this.warnings = List.copyOf(warnings);
  }

  /**
   * The problems, one line each.
   *
   * @return an unmodifiable list
   */
  public List<String> problems() {
    return problems;
  }

  /**
   * The warnings, one line each.
   *
   * @return an unmodifiable list, empty when there are none
   */
  public List<String> warnings() {
    return warnings;
  }
}
