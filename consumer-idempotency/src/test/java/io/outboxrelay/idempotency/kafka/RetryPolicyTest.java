package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryPolicyTest {

  @ParameterizedTest
  @CsvSource({
    "1, 100",
    "2, 200",
    "3, 400",
    "4, 800",
    "5, 1000",
    "6, 1000",
    "63, 1000",
    "1000, 1000"
  })
  void doublesThePauseAfterEachFailureUpToTheCap(int failedAttempt, long expectedMillis) {
    RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(100), Duration.ofSeconds(1));

    assertThat(policy.delayAfter(failedAttempt)).isEqualTo(Duration.ofMillis(expectedMillis));
  }

  @Test
  void theDefaultsRetryForAboutSevenAndAHalfSecondsInAll() {
    RetryPolicy defaults = RetryPolicy.defaults();
    Duration total = Duration.ZERO;
    for (int failed = 1; failed < defaults.maxAttempts(); failed++) {
      total = total.plus(defaults.delayAfter(failed));
    }

    assertThat(defaults.maxAttempts()).isEqualTo(5);
    assertThat(total).isEqualTo(Duration.ofMillis(7_500));
  }

  @Test
  void refusesParametersOutOfRange() {
    assertThatThrownBy(() -> new RetryPolicy(0, Duration.ofMillis(1), Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryPolicy(3, Duration.ZERO, Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RetryPolicy.defaults().delayAfter(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
