package io.outboxrelay.relay.failure;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with jitter: attempt {@code n} waits about {@code initial *
 * multiplier^(n-1)}, never more than {@code max}, spread by a random factor within {@code ±jitter}
 * so that many workers retrying at once do not move in lockstep. Immutable; thread-safe when the
 * random generator is.
 */
public final class Backoff {

  /**
   * The relay's spread of every pause it repeats (retries, reconnects, idle polls): ±20%, enough
   * that workers and processes started together drift apart within a few rounds.
   */
  public static final double JITTER = 0.2;

  private final Duration initial;
  private final Duration max;
  private final double multiplier;
  private final double jitter;
  private final RandomGenerator random;

  /**
   * Creates a backoff.
   *
   * @param initial the pause before the first retry; positive
   * @param max the longest pause; at least {@code initial}
   * @param multiplier growth per attempt; at least 1
   * @param jitter relative spread in [0, 1)
   * @param random the random source
   * @throws IllegalArgumentException when the parameters are out of range
   */
  public Backoff(
      Duration initial, Duration max, double multiplier, double jitter, RandomGenerator random) {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("need 0 < initial <= max, got " + initial + ", " + max);
    }
    if (multiplier < 1 || jitter < 0 || jitter >= 1) {
      throw new IllegalArgumentException("need multiplier >= 1 and 0 <= jitter < 1");
    }
    this.initial = initial;
    this.max = max;
    this.multiplier = multiplier;
    this.jitter = jitter;
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * The pause before retry number {@code attempt}.
   *
   * @param attempt 1 for the first retry
   * @return the pause, between {@code initial * (1 - jitter)} and {@code max}
   */
  public Duration delay(int attempt) {
    double base = initial.toMillis() * Math.pow(multiplier, Math.max(0, attempt - 1));
    base = Math.min(base, max.toMillis());
    double factor = 1 + jitter * (2 * random.nextDouble() - 1);
    long millis = Math.round(base * factor);
    return Duration.ofMillis(Math.max(1, Math.min(millis, max.toMillis())));
  }

  /**
   * A pause spread by {@link #JITTER} either way, at least 1 ms.
   *
   * @param base the pause before spreading
   * @param random the random source
   * @return the spread pause
   */
  public static Duration jittered(Duration base, RandomGenerator random) {
    double factor = 1 + JITTER * (2 * random.nextDouble() - 1);
    return Duration.ofMillis(Math.max(1, Math.round(base.toMillis() * factor)));
  }

  @Override
  public String toString() {
    return "Backoff[initial="
        + initial
        + ", max="
        + max
        + ", x"
        + multiplier
        + ", ±"
        + jitter
        + "]";
  }
}
