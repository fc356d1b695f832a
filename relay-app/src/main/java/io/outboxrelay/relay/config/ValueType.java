package io.outboxrelay.relay.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The type of a configuration value: how its text is parsed and how the reference documentation
 * describes it. Instances are immutable and thread-safe.
 *
 * @param <T> the parsed type
 */
public final class ValueType<T> {

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private static final Pattern WHOLE_NUMBER = Pattern.compile("[+-]?\\d+");

  private static final Pattern DECIMAL = Pattern.compile("[+-]?\\d+(\\.\\d+)?");

  private static final long DAY_MILLIS = 86_400_000L;

  private final String description;
  private final Function<String, T> parser;
  private final Function<T, String> formatter;

  private ValueType(String description, Function<String, T> parser, Function<T, String> formatter) {
    this.description = description;
    this.parser = parser;
    this.formatter = formatter;
  }

  /** Free text, trimmed. */
  public static final ValueType<String> STRING = new ValueType<>("string", s -> s, s -> s);

  /** A secret: parsed like {@link #STRING}, printed as {@code [hidden]}. */
  public static final ValueType<String> PASSWORD =
      new ValueType<>("password (never printed)", s -> s, s -> "[hidden]");

  /** A 32-bit integer. */
  public static final ValueType<Integer> INT =
      new ValueType<>(
          "integer",
          s -> (int) parseWhole(s, Integer.MIN_VALUE, Integer.MAX_VALUE),
          String::valueOf);

  /** A 64-bit integer. */
  public static final ValueType<Long> LONG =
      new ValueType<>(
          "integer", s -> parseWhole(s, Long.MIN_VALUE, Long.MAX_VALUE), String::valueOf);

  /**
   * A decimal number written without an exponent: {@code 5}, {@code 1.5}. Values too large for a
   * {@code double} are {@linkplain OutOfRangeException out of range}.
   */
  public static final ValueType<Double> DOUBLE =
      new ValueType<>("number", ValueType::parseDecimal, ValueType::formatDecimal);

  /** {@code true} or {@code false}. */
  public static final ValueType<Boolean> BOOLEAN =
      new ValueType<>(
          "boolean",
          s -> {
            if (s.equalsIgnoreCase("true")) {
              return Boolean.TRUE;
            }
            if (s.equalsIgnoreCase("false")) {
              return Boolean.FALSE;
            }
            throw new IllegalArgumentException("'" + s + "' is not true or false");
          },
          String::valueOf);

  /**
   * A whole number of milliseconds, seconds, minutes, hours or days: {@code 250ms}, {@code 30s},
   * {@code 5m}, {@code 2h}, {@code 7d}. Values whose milliseconds do not fit a {@code long} are
   * {@linkplain OutOfRangeException out of range}; keys bound them further.
   */
  public static final ValueType<Duration> DURATION_TYPE =
      new ValueType<>(
          "duration (e.g. 250ms, 30s, 5m, 2h, 7d)", ValueType::parseDuration, ValueType::format);

  /**
   * The longest duration an operator option takes: 100 years, which any computation on it (in
   * nanoseconds, or subtracted from the database's clock) can hold.
   */
  public static final Duration LONGEST_OPTION = Duration.ofDays(36_500);

  /**
   * Parses an operator command's duration option as the configuration parses its durations, and
   * bounds it, so that every duration the relay takes is read by one parser and none overflows
   * later.
   *
   * @param option the option, for the message, e.g. {@code --since}
   * @param text what the operator typed
   * @return the duration, from zero up to {@link #LONGEST_OPTION}
   * @throws IllegalArgumentException with one line saying what to write, when the text is not a
   *     duration or is longer than {@link #LONGEST_OPTION}
   */
  public static Duration optionDuration(String option, String text) {
    Duration d;
    try {
      d = DURATION_TYPE.parse(text.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage());
    }
    if (d.compareTo(LONGEST_OPTION) > 0) {
      throw new IllegalArgumentException(
          option
              + ": '"
              + text.strip()
              + "' is longer than "
              + format(LONGEST_OPTION)
              + ", the longest duration an option takes");
    }
    return d;
  }

  /**
   * One of the constants of an enum, written in lower case.
   *
   * @param type the enum class
   * @param <E> the enum type
   * @return the value type
   */
  public static <E extends Enum<E>> ValueType<E> oneOf(Class<E> type) {
    String names =
        Arrays.stream(type.getEnumConstants())
            .map(e -> e.name().toLowerCase(Locale.ROOT).replace('_', '-'))
            .collect(Collectors.joining("|"));
    return new ValueType<>(
        "one of " + names,
        s -> {
          for (E constant : type.getEnumConstants()) {
            // exactly-once or exactly_once
            if (constant.name().equalsIgnoreCase(s.replace('-', '_'))) {
              return constant;
            }
          }
          throw new IllegalArgumentException("'" + s + "' is not one of " + names);
        },
        e -> e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
  }

  /**
   * Parses a value.
   *
   * @param text the trimmed text from the properties file
   * @return the value
   * @throws IllegalArgumentException with a short reason when the text is not a valid value
   */
  public T parse(String text) {
    return parser.apply(text);
  }

  /**
   * Formats a value for printing; secrets print as {@code [hidden]}.
   *
   * @param value the value
   * @return its text
   */
  public String format(T value) {
    return formatter.apply(value);
  }

  /**
   * What values look like, for the reference documentation.
   *
   * @return the description
   */
  public String description() {
    return description;
  }

  /**
   * Whether values of this type are secrets.
   *
   * @return true for {@link #PASSWORD}
   */
  public boolean isSecret() {
    return this == PASSWORD;
  }

  private static long parseWhole(String s, long min, long max) {
    if (!WHOLE_NUMBER.matcher(s).matches()) {
      throw new IllegalArgumentException("'" + s + "' is not an integer");
    }
    try {
      long value = Long.parseLong(s);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // digits only, so it is too long for a long: out of range as well
    }
    throw new OutOfRangeException("'" + s + "' is out of range");
  }

  private static double parseDecimal(String s) {
    if (!DECIMAL.matcher(s).matches()) {
      throw new IllegalArgumentException("'" + s + "' is not a number (e.g. 2 or 1.5)");
    }
    double value = Double.parseDouble(s);
    if (Double.isInfinite(value)) {
      throw new OutOfRangeException("'" + s + "' is out of range");
    }
    return value;
  }

  /** {@code 5} rather than {@code 5.0}, {@code 1.5} as it is. */
  private static String formatDecimal(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  private static Duration parseDuration(String s) {
    Matcher m = DURATION.matcher(s.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'"
              + s
              + "' is not a duration: write a whole number and a unit (ms, s, m, h or d), e.g."
              + " 250ms, 30s, 5m, 2h, 7d");
    }
    long unitMillis =
        switch (m.group(2)) {
          case "ms" -> 1L;
          case "s" -> 1_000L;
          case "m" -> 60_000L;
          case "h" -> 3_600_000L;
          default -> DAY_MILLIS;
        };
    try {
      // Millisecond arithmetic that cannot overflow later: Duration.ofHours(Long.MAX_VALUE)
      // throws ArithmeticException, and toMillis() of a larger Duration would too.
      return Duration.ofMillis(Math.multiplyExact(Long.parseLong(m.group(1)), unitMillis));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new OutOfRangeException("'" + s + "' is out of range");
    }
  }

  private static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % DAY_MILLIS == 0 && ms > 0) {
      return ms / DAY_MILLIS + "d";
    }
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0 && ms > 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /**
   * A value of the right form that the type cannot hold (an integer or a duration too large). The
   * key that parses it adds its valid range to the message.
   */
  static final class OutOfRangeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    OutOfRangeException(String message) {
      super(message);
    }
  }
}
