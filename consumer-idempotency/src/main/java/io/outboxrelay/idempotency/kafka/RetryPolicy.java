package io.outboxrelay.idempotency.kafka;

import java.time.Duration;
import java.util.Objects;

/**
 * How often, and how far apart, a failing record is tried: attempt {@code n+1} follows failed
 * attempt {@code n} after {@code initialBackoff * 2^(n-1)}, capped at {@code maxBackoff}. No
 * jitter: a retry concerns one record of one partition, there is no herd to spread. Immutable and
 * thread-safe.
 *
 * <p>While a record waits, its partition is paused and the consumer keeps polling its other
 * partitions, so waiting never counts against {@code max.poll.interval.ms}.
 *
 * @param maxAttempts attempts in total, including the first; at least 1 (1 = no retry)
 * @param initialBackoff the pause after the first failure; positive
 * @param maxBackoff the longest pause; at least {@code initialBackoff}
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

  /**
   * Validates the parameters.
   *
   * @param maxAttempts see {@link RetryPolicy}
   * @param initialBackoff see {@link RetryPolicy}
   * @param maxBackoff see {@link RetryPolicy}
   * @throws IllegalArgumentException if they are out of range
   * @throws NullPointerException if a duration is {@code null}
   */
  public RetryPolicy {
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    if (initialBackoff.isNegative()
        || initialBackoff.isZero()
        || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "need 0 < initialBackoff <= maxBackoff, got " + initialBackoff + ", " + maxBackoff);
    }
  }

  /**
   * Five attempts, 500 ms after the first failure, then 1 s, 2 s, 4 s (about 7.5 s in all); pauses
   * are capped at 30 s if {@code maxAttempts} is raised.
   *
   * @return the default policy
   */
  public static RetryPolicy defaults() {
    return new RetryPolicy(5, Duration.ofMillis(500), Duration.ofSeconds(30));
  }

  /**
   * The pause after failed attempt {@code failedAttempt}.
   *
   * @param failedAttempt 1 after the first failure
   * @return {@code min(maxBackoff, initialBackoff * 2^(failedAttempt-1))}
   * @throws IllegalArgumentException if {@code failedAttempt < 1}
   */
  public Duration delayAfter(int failedAttempt) {
    if (failedAttempt < 1) {
      throw new IllegalArgumentException("failedAttempt must be at least 1, got " + failedAttempt);
    }
    int doublings = Math.min(failedAttempt - 1, 62);
    long maxNanos = maxBackoff.toNanos();
    long initialNanos = initialBackoff.toNanos();
    if (initialNanos > (maxNanos >> doublings)) {
      return maxBackoff;
    }
    return Duration.ofNanos(Math.min(maxNanos, initialNanos << doublings));
  }
}
