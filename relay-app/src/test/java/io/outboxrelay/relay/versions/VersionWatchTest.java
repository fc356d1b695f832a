package io.outboxrelay.relay.versions;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.VersionCheck;
import io.outboxrelay.relay.config.VersionCheckConfig;
import io.outboxrelay.relay.metrics.RecordingLogger;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.versions.VersionWatch.Verdict;
import io.outboxrelay.router.OutboxEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class VersionWatchTest {

  private final RelayMetrics metrics = new RelayMetrics();
  private final RecordingLogger log = new RecordingLogger();

  private VersionWatch watch(VersionCheck mode, int aggregates) {
    return VersionWatch.of(new VersionCheckConfig(mode, aggregates), metrics, "test", log.logger());
  }

  private static OutboxEvent event(String eventId, String aggregateId, Long version) {
    return new OutboxEvent(
        1L,
        eventId,
        "order",
        aggregateId,
        "OrderPaid",
        "{\"secret\":\"card 4111\"}".getBytes(StandardCharsets.UTF_8),
        null,
        version);
  }

  @Test
  void logsAndCountsAVersionThatGoesBackwardsAndPublishesIt() {
    VersionWatch w = watch(VersionCheck.BACKWARDS, 100);

    assertThat(w.published(event("e1", "o-1", 1L))).isEqualTo(Verdict.FIRST);
    assertThat(w.published(event("e2", "o-1", 2L))).isEqualTo(Verdict.IN_ORDER);
    assertThat(w.published(event("e3", "o-1", 3L))).isEqualTo(Verdict.IN_ORDER);
    assertThat(w.published(event("e2b", "o-1", 2L))).isEqualTo(Verdict.BACKWARDS);
    // The newest version stays the mark, so a later old one is caught as well.
    assertThat(w.published(event("e4", "o-1", 3L))).isEqualTo(Verdict.BACKWARDS);
    assertThat(w.published(event("e5", "o-1", 4L))).isEqualTo(Verdict.IN_ORDER);

    assertThat(metrics.versionsBackwardsCount()).isEqualTo(2);
    assertThat(metrics.versionGapsCount()).isZero();
    assertThat(log.lines())
        .hasSize(2)
        .first()
        .asString()
        .startsWith("WARN [test] aggregate_version went backwards: event_id=e2b")
        .contains("aggregate_id='o-1'")
        .contains("has version 2 after version 3");
    assertThat(log.lines()).noneMatch(l -> l.contains("4111")); // never the payload
  }

  @Test
  void takesTheSameEventWithTheSameVersionAgainForARetryNotARegression() {
    VersionWatch w = watch(VersionCheck.CONTIGUOUS, 100);

    w.published(event("e1", "o-1", 1L));
    assertThat(w.published(event("e1", "o-1", 1L))).isEqualTo(Verdict.REPEATED);
    // Another event claiming the version already published is stale for consumers.
    assertThat(w.published(event("other", "o-1", 1L))).isEqualTo(Verdict.BACKWARDS);

    assertThat(metrics.versionsBackwardsCount()).isEqualTo(1);
  }

  @Test
  void reportsAGapOnlyWhenVersionsMustBeContiguous() {
    VersionWatch backwards = watch(VersionCheck.BACKWARDS, 100);
    backwards.published(event("e1", "o-1", 1L));
    assertThat(backwards.published(event("e3", "o-1", 3L))).isEqualTo(Verdict.IN_ORDER);
    assertThat(metrics.versionGapsCount()).isZero();

    VersionWatch contiguous = watch(VersionCheck.CONTIGUOUS, 100);
    contiguous.published(event("e1", "o-2", 1L));
    assertThat(contiguous.published(event("e4", "o-2", 4L))).isEqualTo(Verdict.GAP);
    assertThat(contiguous.published(event("e5", "o-2", 5L))).isEqualTo(Verdict.IN_ORDER);

    assertThat(metrics.versionGapsCount()).isEqualTo(1);
    assertThat(log.lines())
        .containsExactly(
            "WARN [test] aggregate_version skipped ahead: event_id=e4 (aggregate_type='order',"
                + " aggregate_id='o-2') has version 4 after version 1; versions in between were"
                + " not published by this relay (not written, DEAD or skipped, or published by"
                + " another process)");
  }

  @Test
  void remembersAtMostTheBoundForgettingTheLeastRecentlyPublishedAggregate() {
    VersionWatch w = watch(VersionCheck.BACKWARDS, 3);
    w.published(event("a1", "a", 5L));
    w.published(event("b1", "b", 5L));
    w.published(event("c1", "c", 5L));
    w.published(event("a2", "a", 6L)); // a is now the most recent
    w.published(event("d1", "d", 5L)); // forgets b

    assertThat(w.aggregates()).isEqualTo(3);
    assertThat(w.published(event("b0", "b", 1L))).isEqualTo(Verdict.FIRST); // forgotten
    assertThat(w.published(event("a0", "a", 1L))).isEqualTo(Verdict.BACKWARDS); // remembered
    for (int i = 0; i < 10_000; i++) {
      w.published(event("x" + i, "x" + i, 1L));
    }
    assertThat(w.aggregates()).isEqualTo(3);
  }

  @Test
  void checksNothingWhenOffOrWithoutAVersion() {
    VersionWatch off = watch(VersionCheck.OFF, 100);
    off.published(event("e3", "o-1", 3L));
    assertThat(off.published(event("e1", "o-1", 1L))).isEqualTo(Verdict.FIRST);
    assertThat(off.aggregates()).isZero();

    VersionWatch on = watch(VersionCheck.CONTIGUOUS, 100);
    on.published(event("e3", "o-1", 3L));
    assertThat(on.published(event("n", "o-1", null))).isEqualTo(Verdict.FIRST);

    assertThat(metrics.versionsBackwardsCount()).isZero();
    assertThat(log.lines()).isEmpty();
  }
}
