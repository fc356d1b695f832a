package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BackoffTest {

  @Test
  void growsExponentiallyUpToTheCapWithoutJitter() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(2), 5, 0, new Random(1));

    assertThat(b.delay(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.delay(2)).isEqualTo(Duration.ofSeconds(5));
    assertThat(b.delay(3)).isEqualTo(Duration.ofSeconds(25));
    assertThat(b.delay(4)).isEqualTo(Duration.ofMinutes(2));
    assertThat(b.delay(40)).isEqualTo(Duration.ofMinutes(2));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 10, 30})
  void staysWithinTheJitterBandAndTheCap(int attempt) {
    Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), 2, 0.2, new Random(42));
    double base = Math.min(200 * Math.pow(2, attempt - 1), 30_000);

    for (int i = 0; i < 1000; i++) {
      long ms = b.delay(attempt).toMillis();
      assertThat(ms)
          .isBetween(Math.round(base * 0.8) - 1, Math.min(30_000, Math.round(base * 1.2) + 1));
    }
  }

  @Test
  void spreadsRetriesOfManyWorkers() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(2), 5, 0.2, new Random(7));

    long distinct =
        java.util.stream.IntStream.range(0, 100)
            .mapToLong(i -> b.delay(2).toMillis())
            .distinct()
            .count();

    assertThat(distinct).isGreaterThan(50);
  }

  @Test
  void spreadsAPauseByTheSharedJitterEitherWay() {
    Random random = new Random(3);
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 1000; i++) {
      long ms = Backoff.jittered(Duration.ofMillis(1000), random).toMillis();
      min = Math.min(min, ms);
      max = Math.max(max, ms);
    }

    assertThat(Backoff.JITTER).isEqualTo(0.2);
    assertThat(min).isBetween(800L, 820L);
    assertThat(max).isBetween(1180L, 1200L);
    assertThat(Backoff.jittered(Duration.ZERO, random)).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 2, 0, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2, 0, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 1.0, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
