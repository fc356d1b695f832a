package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.metrics.MutableClock;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.metrics.RecordingLogger;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BinlogConnectionWatchTest {

  private static final Duration KEEPALIVE = Duration.ofSeconds(3);

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-05T10:00:00Z"));
  private final RecordingLogger log = new RecordingLogger();
  private Optional<StreamingProbe.Sample> sample = Optional.empty();
  private boolean databaseAnswers;
  private int asked;
  private final BinlogConnectionWatch watch =
      new BinlogConnectionWatch(
          () -> sample,
          new OutageLog(log.logger(), "relay", "db", "reconnecting", OutageLog.REPEAT, clock),
          KEEPALIVE,
          clock,
          () -> {
            asked++;
            return databaseAnswers;
          });

  private void observe(boolean connected, boolean queueFull, long silentSeconds, Duration then) {
    sample = Optional.of(new StreamingProbe.Sample(connected, queueFull, silentSeconds));
    watch.check();
    clock.advance(then);
  }

  @Test
  void reportsAClosedConnectionOnceItStaysClosedForTheGracePeriod() {
    observe(true, false, 0, Duration.ofMillis(250));
    observe(false, false, 0, Duration.ofMillis(500));
    observe(false, false, 0, Duration.ofMillis(500));
    assertThat(log.lines()).isEmpty();

    observe(false, false, 1, Duration.ofMillis(250));
    assertThat(log.lines())
        .containsExactly(
            "WARN [relay] db unreachable since 2026-01-05T10:00:00.250: the binlog connection was"
                + " closed; reconnecting");
  }

  @Test
  void datesASilentConnectionFromTheLastThingReceived() {
    observe(false, false, 4, BinlogConnectionWatch.GRACE);
    observe(false, false, 5, Duration.ZERO);

    assertThat(log.lines()).hasSize(1);
    assertThat(log.lines().get(0))
        .startsWith("WARN [relay] db unreachable since 2026-01-05T09:59:56.000: the binlog")
        .contains("went silent");
  }

  @Test
  void blamesNotTheDatabaseWhileTheReaderWaitsOnAFullQueue() {
    for (int i = 0; i < 40; i++) {
      observe(false, true, 10 + i, Duration.ofMillis(250)); // Kafka is slow: the queue is full
    }
    observe(false, false, 20, Duration.ofMillis(50)); // the queue drained, the client reconnects
    observe(true, false, 0, Duration.ZERO);

    assertThat(log.lines()).isEmpty();
  }

  @Test
  void tellsOnceThatTheConnectionIsBackWithTheOutageLength() {
    observe(false, false, 0, Duration.ofSeconds(2));
    observe(false, false, 2, Duration.ofSeconds(3));
    observe(true, false, 0, Duration.ofSeconds(1));
    observe(true, false, 0, Duration.ZERO);

    assertThat(log.lines())
        .hasSize(2)
        .last()
        .isEqualTo(
            "INFO [relay] db reachable again after an outage of 5.0 s (since"
                + " 2026-01-05T10:00:00.000); publishing resumes from where it stopped");
  }

  @Test
  void ignoresReadingsWhileTheStreamingMetricsAreNotRegistered() {
    observe(false, false, 0, Duration.ofSeconds(2));
    sample = Optional.empty();
    watch.check();

    assertThat(log.lines()).isEmpty();
  }

  @Test
  void saysNothingOfAnOutageWhileTheDatabaseAnswersAndAsksAgainOnlyEveryKeepalive() {
    // The server dropped the reader (a purged position, another reader with its server id) but
    // answers: no "unreachable" warning; the engine reports why it stopped.
    databaseAnswers = true;
    for (int i = 0; i < 20; i++) {
      observe(false, false, i / 4, Duration.ofMillis(250));
    }
    assertThat(log.lines()).isEmpty();
    assertThat(asked).as("asked at the grace period, then once per keepalive").isEqualTo(2);

    databaseAnswers = false; // now it is really gone
    clock.advance(KEEPALIVE);
    observe(false, false, 9, Duration.ZERO);
    assertThat(log.lines()).singleElement().asString().contains("db unreachable since");
  }
}
