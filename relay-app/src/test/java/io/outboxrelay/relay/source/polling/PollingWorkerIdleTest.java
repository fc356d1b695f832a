package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PollingWorkerIdleTest {

  private static final Duration INTERVAL = Duration.ofMillis(100);

  @Test
  void theIdlePauseStartsAtAnEighthAndDoublesToTheIntervalFromTheFourthEmptyClaim() {
    assertThat(PollingWorker.idlePause(INTERVAL, 1))
        .isEqualTo(Duration.ofMillis(12).plusNanos(500_000));
    assertThat(PollingWorker.idlePause(INTERVAL, 2)).isEqualTo(Duration.ofMillis(25));
    assertThat(PollingWorker.idlePause(INTERVAL, 3)).isEqualTo(Duration.ofMillis(50));
    assertThat(PollingWorker.idlePause(INTERVAL, 4)).isEqualTo(INTERVAL);
    assertThat(PollingWorker.idlePause(INTERVAL, 1_000_000)).isEqualTo(INTERVAL);
  }
}
