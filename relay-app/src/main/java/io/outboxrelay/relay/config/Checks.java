package io.outboxrelay.relay.config;

import java.time.Duration;
import java.util.function.Function;

/** Reusable value checks for {@link ConfigKey} declarations. */
final class Checks {

  private Checks() {}

  static Function<Integer, String> atLeast(int min) {
    return v -> v < min ? "must be at least " + min + ", got " + v : null;
  }

  static Function<Integer, String> between(int min, int max) {
    return v -> v < min || v > max ? "must be between " + min + " and " + max + ", got " + v : null;
  }

  static Function<Duration, String> atLeast(Duration min) {
    return v ->
        v.compareTo(min) < 0
            ? "must be at least "
                + ValueType.DURATION_TYPE.format(min)
                + ", got "
                + ValueType.DURATION_TYPE.format(v)
            : null;
  }

  static Function<String, String> notBlank() {
    return v -> v.isBlank() ? "must not be empty" : null;
  }

  /** An SQL identifier we splice into statements: letters, digits, underscore, dollar. */
  static Function<String, String> identifier() {
    return v ->
        v.matches("[A-Za-z_][A-Za-z0-9_$]{0,63}")
            ? null
            : "'" + v + "' is not a plain SQL identifier (letters, digits, _ and $, at most 64)";
  }
}
