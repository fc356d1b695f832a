package io.outboxrelay.relay.config;

import java.time.Duration;
import java.util.function.Function;

/** Reusable value checks for {@link ConfigKey} declarations. */
final class Checks {

  private Checks() {}

  /**
   * The values a numeric or duration key accepts, both ends included. Besides checking, it is what
   * the reference documentation shows and what a value too large for its type is told.
   *
   * @param <T> the value type
   */
  static final class Range<T extends Comparable<? super T>> implements Function<T, String> {

    private final T min;
    private final T max;
    private final Function<T, String> format;

    private Range(T min, T max, Function<T, String> format) {
      this.min = min;
      this.max = max;
      this.format = format;
    }

    @Override
    public String apply(T value) {
      return value.compareTo(min) < 0 || value.compareTo(max) > 0
          ? "must be " + this + ", got " + format.apply(value)
          : null;
    }

    /** {@code between 1 and 65535}. */
    @Override
    public String toString() {
      return "between " + format.apply(min) + " and " + format.apply(max);
    }

    /** {@code 1 to 65535}, for the reference documentation. */
    String span() {
      return format.apply(min) + " to " + format.apply(max);
    }
  }

  static Range<Integer> between(int min, int max) {
    return new Range<>(min, max, String::valueOf);
  }

  static Range<Long> between(long min, long max) {
    return new Range<>(min, max, String::valueOf);
  }

  static Range<Double> between(double min, double max) {
    return new Range<>(min, max, v -> ValueType.DOUBLE.format(v));
  }

  static Range<Duration> between(Duration min, Duration max) {
    return new Range<>(min, max, d -> ValueType.DURATION_TYPE.format(d));
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
