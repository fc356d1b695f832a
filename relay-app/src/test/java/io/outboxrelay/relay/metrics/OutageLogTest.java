package io.outboxrelay.relay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OutageLogTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-05T10:00:00Z"));
  private final RecordingLogger log = new RecordingLogger();
  private final OutageLog outages =
      new OutageLog(
          log.logger(),
          "relay",
          "source database db:3306/app",
          "retrying",
          OutageLog.REPEAT,
          clock);

  @Test
  void warnsOnceWhenAnOutageBeginsSayingWhatSinceWhenAndThatItRetries() {
    outages.down(clock.instant().minusMillis(1500), "the connection was closed");
    clock.advance(Duration.ofSeconds(1));
    outages.down(clock.instant(), "the connection was closed");

    assertThat(log.lines())
        .containsExactly(
            "WARN [relay] source database db:3306/app unreachable since"
                + " 2026-01-05T09:59:58.500: the connection was closed; retrying");
    assertThat(outages.isDown()).isTrue();
  }

  @Test
  void repeatsTheWarningAtMostEveryThirtySeconds() {
    outages.down(clock.instant(), "closed");
    for (int i = 0; i < 70; i++) {
      clock.advance(Duration.ofSeconds(1));
      outages.down(clock.instant(), "closed");
    }

    assertThat(log.lines())
        .containsExactly(
            "WARN [relay] source database db:3306/app unreachable since 2026-01-05T10:00:00.000:"
                + " closed; retrying",
            "WARN [relay] source database db:3306/app still unreachable, for 30 s now (since"
                + " 2026-01-05T10:00:00.000): closed; retrying",
            "WARN [relay] source database db:3306/app still unreachable, for 60 s now (since"
                + " 2026-01-05T10:00:00.000): closed; retrying");
  }

  @Test
  void tellsHowLongTheOutageLastedOnceWhenItEnds() {
    outages.down(clock.instant(), "closed");
    clock.advance(Duration.ofMillis(7400));

    assertThat(outages.up("publishing resumes")).contains(Duration.ofMillis(7400));
    assertThat(outages.up("publishing resumes")).isEmpty();
    assertThat(log.lines())
        .last()
        .isEqualTo(
            "INFO [relay] source database db:3306/app reachable again after an outage of 7.4 s"
                + " (since 2026-01-05T10:00:00.000); publishing resumes");
    assertThat(log.lines()).hasSize(2);
    assertThat(outages.isDown()).isFalse();
  }

  @Test
  void saysNothingWhenNoOutageWasReported() {
    assertThat(outages.up("publishing resumes")).isEmpty();
    assertThat(log.lines()).isEmpty();
  }

  @Test
  void neverDatesAnOutageInTheFuture() {
    outages.down(clock.instant().plusSeconds(5), "closed");

    assertThat(log.lines().get(0)).contains("since 2026-01-05T10:00:00.000");
  }

  @Test
  void oneOutageWhileAnyObserverSeesItDown() {
    outages.down("binlog", clock.instant(), "the binlog connection was closed");
    clock.advance(Duration.ofSeconds(2));
    outages.down("lease", clock.instant(), "the lease table cannot be read");
    clock.advance(Duration.ofSeconds(1));

    assertThat(outages.up("binlog", "publishing resumes")).isEmpty();
    assertThat(outages.isDown()).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(outages.up("lease", "leader (epoch 3), publishing")).contains(Duration.ofSeconds(4));

    assertThat(log.lines())
        .containsExactly(
            "WARN [relay] source database db:3306/app unreachable since 2026-01-05T10:00:00.000:"
                + " the binlog connection was closed; retrying",
            "INFO [relay] source database db:3306/app reachable again after an outage of 4.0 s"
                + " (since 2026-01-05T10:00:00.000); leader (epoch 3), publishing");
  }

  @Test
  void anObserverThatStopsWatchingLeavesTheEndToTheOthers() {
    outages.down("binlog", clock.instant(), "the binlog connection was closed");
    outages.clear("binlog"); // its reader was closed while the database was still down
    clock.advance(Duration.ofSeconds(5));

    assertThat(outages.isDown()).isTrue();
    assertThat(outages.up("lease", "standby")).contains(Duration.ofSeconds(5));
    assertThat(log.lines()).last().asString().startsWith("INFO").endsWith("; standby");
  }
}
