package io.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The pinned-xmin group's bookkeeping: events counted in the window in which they became visible,
 * latencies in the window of their commit, the relay's throughput lines read from its log and
 * summed per window, and the group's options.
 */
class PinnedXminRunTest {

  private static OutboxTableSample sample(long at, long dead, long vacuums, long scans, long read) {
    return new OutboxTableSample(at, 100, dead, 8L << 20, vacuums, scans, read, 7);
  }

  @Test
  void countsEventsWhereTheyBecameVisibleAndLatenciesWhereTheyCommitted() {
    List<OutboxTableSample> samples =
        List.of(
            sample(1_000, 0, 0, 0, 0),
            sample(11_000, 500, 0, 10, 1_000),
            sample(21_000, 20, 1, 30, 1_400));
    Map<String, Long> commits =
        Map.of("a", 2_000L, "b", 9_900L, "c", 15_000L, "d", 20_500L, "lost", 5_000L);
    Map<String, Long> visible = Map.of("a", 2_010L, "b", 11_100L, "c", 15_020L, "d", 21_300L);

    PinnedXminRun run =
        PinnedXminRun.of(
            "pinned",
            samples,
            21_000,
            commits,
            id -> visible.getOrDefault(id, -1L),
            List.of(),
            List.of("note"));

    assertThat(run.windows()).hasSize(2);
    PinnedXminRun.Window first = run.windows().get(0);
    assertThat(first.endSeconds()).isEqualTo(10.0);
    assertThat(first.eventsPerSecond()).isEqualTo(0.1); // a; b became visible in the second
    assertThat(first.latency().count()).isEqualTo(2); // a and b committed in the first
    assertThat(first.latency().max()).isEqualTo(1_200.0);
    assertThat(first.statusIndexTuplesPerScan()).isEqualTo(100.0);
    PinnedXminRun.Window second = run.windows().get(1);
    assertThat(second.eventsPerSecond()).isEqualTo(0.2); // b and c; d after the load
    assertThat(second.vacuums()).isEqualTo(1);
    assertThat(second.statusIndexTuplesPerScan()).isEqualTo(20.0);
    assertThat(run.written()).isEqualTo(5);
    assertThat(run.missing()).isEqualTo(1);
    assertThat(run.visibleAfterLoad()).isEqualTo(1);
    assertThat(run.drainSeconds()).isEqualTo(0.3);
    assertThat(run.eventsPerSecond()).isEqualTo(0.15); // a, b, c over 20 s
    assertThat(run.maxDeadTuples()).isEqualTo(500);
    assertThat(run.relay()).isNull();
  }

  @Test
  void rendersARowPerWindowAndASummaryPerRunWithEveryColumn() {
    List<OutboxTableSample> samples =
        List.of(sample(0, 0, 0, 0, 0), sample(10_000, 9, 0, 4, 8), sample(20_000, 30, 0, 8, 40));
    PinnedXminTable table = new PinnedXminTable();
    table.conditions("test load");
    for (String label : List.of("unpinned", "pinned")) {
      table.add(
          PinnedXminRun.of(
              label,
              samples,
              20_000,
              Map.of("a", 5_000L),
              id -> 5_010L,
              List.of(new RelayStatsLine(9_000, 1_000, 10, 2, 1.0, 2.5)),
              List.of("a note")));
    }
    table.note("a table note");

    String text = table.render();

    List<String> rows = text.lines().filter(l -> l.startsWith("|")).toList();
    assertThat(rows).hasSize(2 + 2 * 2 + 2); // header, rule, two windows per run, two summaries
    assertThat(rows)
        .allSatisfy(r -> assertThat(r.chars().filter(c -> c == '|').count()).isEqualTo(15));
    assertThat(rows.get(2))
        .startsWith("| unpinned | 10 | 0 | 10 | 10 | 10 | 100 | 9 | 8.0 | 0 | 7 | 2 | 5.0 | 2.5 |");
    assertThat(rows.get(7))
        .startsWith("| **pinned, all** | 20 | 0 | 10 | 10 | 10 | 100 | max 30 |");
    assertThat(text)
        .contains(
            "- pinned: a note",
            "- a table note",
            "Polling on PostgreSQL under a pinned xmin: test load");
  }

  @Test
  void refusesARunWithoutAWindow() {
    assertThatThrownBy(
            () ->
                PinnedXminRun.of(
                    "unpinned",
                    List.of(sample(0, 0, 0, 0, 0)),
                    1,
                    Map.of(),
                    id -> -1,
                    List.of(),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void readsTheRelaysThroughputLinesAndSumsThemPerWindow() {
    String log =
        "2026-12-06T12:33:21.499 INFO  [main] StatsReporter - [relay mode=polling name=x] published"
            + " 0 events in 0s (0.0/s; no batches); total 0, resent 0, retries 0, poison 0, lost"
            + " leases 0; newest published event is n/a old\n"
            + "2026-12-06T12:33:25.000 WARN  [w-1] PollingWorker - something else\n"
            + "2026-12-06T12:33:31.500 INFO  [relay-stats] StatsReporter - [relay mode=polling"
            + " name=x] published 10000 events in 10s (1000.0/s; 400 batches, avg 3.0 ms to"
            + " acknowledge, 1.0 ms to commit); total 10000, resent 0, retries 0, poison 0, lost"
            + " leases 0; newest published event is 20 ms old\n"
            + "2026-12-06T12:33:41.500 INFO  [relay-stats] StatsReporter - [relay mode=polling"
            + " name=x] published 10000 events in 10s (1000.0/s; 100 batches, avg 5.0 ms to"
            + " acknowledge, 6.0 ms to commit); total 20000, resent 0, retries 0, poison 0, lost"
            + " leases 0; newest published event is 30 ms old\n";

    List<RelayStatsLine> lines = RelayStatsLine.parse(log, ZoneOffset.UTC);

    assertThat(lines).hasSize(3);
    assertThat(lines.get(0).batches()).isZero();
    assertThat(lines.get(1).atMillis() - lines.get(0).atMillis()).isEqualTo(10_001);
    assertThat(lines.get(1).eventsPerBatch()).isEqualTo(25.0);
    // by the middles of their intervals: 12:33:26.500 and 12:33:36.500; the first's is its end
    RelayStatsLine both =
        RelayStatsLine.between(lines, lines.get(1).atMillis() - 10_000, lines.get(2).atMillis());
    assertThat(both.published()).isEqualTo(20_000);
    assertThat(both.batches()).isEqualTo(500);
    assertThat(both.commitMillis()).isEqualTo(2.0); // (400 × 1.0 + 100 × 6.0) / 500
    assertThat(RelayStatsLine.between(lines, 0, lines.get(0).atMillis())).isNull();
    // a window from the second line's end: that line lies mostly before it, the third in it
    assertThat(
            RelayStatsLine.between(lines, lines.get(1).atMillis(), lines.get(2).atMillis())
                .batches())
        .isEqualTo(100);
  }

  @Test
  void runsAtItsOwnRateUnlessOneIsGivenAndTakesFractionalMinutes() {
    BenchOptions defaults = BenchOptions.parse(new String[] {"--only", "pinned-xmin"});
    assertThat(defaults.pinnedXminRate()).isEqualTo(1_000);
    assertThat(defaults.pinLoad).isEqualTo(Duration.ofMinutes(10));
    assertThat(defaults.sampleSeconds).isEqualTo(10);
    assertThat(defaults.vacuumStandIn).isTrue();

    BenchOptions given =
        BenchOptions.parse(
            new String[] {
              "--only",
              "pinned-xmin",
              "--rate",
              "500",
              "--pin-minutes",
              "0.5",
              "--sample-seconds",
              "5"
            });
    assertThat(given.pinnedXminRate()).isEqualTo(500);
    assertThat(given.pinLoad).isEqualTo(Duration.ofSeconds(30));
    assertThat(BenchOptions.parse(new String[] {"--pin-seconds", "45"}).pinLoad)
        .isEqualTo(Duration.ofSeconds(45));
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--pin-minutes", "0.001"}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
