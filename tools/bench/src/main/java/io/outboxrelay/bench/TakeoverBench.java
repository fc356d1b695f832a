package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takeover of a killed CDC leader by its standby, repeated: two relays with one configuration run
 * under a steady load; the bench kills the leader with SIGKILL, waits until the standby publishes,
 * starts a new standby, lets the load run, and kills again. For each takeover it reports the
 * longest pause in the broker's append times from a second before the kill to the next kill (with
 * events every millisecond, that is the time nothing was published; records the old leader had in
 * flight may be appended just after the kill, so the first append after it says nothing) and the
 * duplicates (events appended after the kill that were appended before it). Median and spread over
 * all takeovers. One {@link FaultStage} (a MariaDB of its own). Not thread-safe.
 */
final class TakeoverBench {

  private static final Logger LOG = LoggerFactory.getLogger(TakeoverBench.class);
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";

  private final BenchEnv env;

  TakeoverBench(BenchEnv env) {
    this.env = env;
  }

  void run(ResultTable table, int takeovers, int rate, Duration load) throws Exception {
    String name = "bench-takeover-" + Long.toHexString(System.nanoTime() & 0xffff);
    String bootstrap = env.bootstrapServers();
    List<Long> kills = new ArrayList<>();
    try (FaultStage stage =
        FaultStage.open(env, name, db -> RelaySettings.cdc(db, bootstrap, name))) {
      try {
        RelayProcess leader = start(stage, 1);
        leader.awaitReady();
        RelayProcess standby = start(stage, 2);
        try (SteadyWriter writer = stage.startWriter(rate)) {
          Thread.sleep(load.toMillis());
          for (int i = 0; i < takeovers; i++) {
            System.err.println("  takeover " + (i + 1) + " of " + takeovers + "...");
            kills.add(System.currentTimeMillis());
            leader.process().kill();
            leader.waitFor(Duration.ofSeconds(30));
            standby.awaitReady();
            leader = standby;
            standby = start(stage, stage.relays().size() + 1);
            Thread.sleep(load.toMillis());
          }
          writer.stop(Duration.ofSeconds(120));
        }
        stage.reader().readUntil(stage.ledger()::allArrived, Duration.ofSeconds(120));
      } finally {
        stage.stopRelays();
      }
      report(table, rate, stage, kills);
    }
  }

  private static RelayProcess start(FaultStage stage, int n) {
    RelayProcess p = stage.startRelay(n);
    p.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
    return p;
  }

  private void report(ResultTable table, int rate, FaultStage stage, List<Long> kills) {
    List<ConsumedRecord> records =
        new ArrayList<>(stage.reader().readAll(Duration.ofSeconds(3), Duration.ofSeconds(120)));
    records.sort(Comparator.comparingLong(ConsumedRecord::timestamp));
    Ledger.Result result = stage.ledger().check(records);
    double[] gaps = new double[kills.size()];
    double[] duplicates = new double[kills.size()];
    for (int k = 0; k < kills.size(); k++) {
      long kill = kills.get(k);
      long next = k + 1 < kills.size() ? kills.get(k + 1) : Long.MAX_VALUE;
      // The takeover is the longest pause between two appends from a second before the kill on:
      // records the old leader had in flight may still be appended just after the kill.
      long previous = Long.MIN_VALUE;
      long longestPause = 0;
      Set<String> before = new HashSet<>();
      int dup = 0;
      for (ConsumedRecord r : records) {
        if (r.timestamp() < kill) {
          before.add(r.header("id"));
        } else if (r.timestamp() < next && before.contains(r.header("id"))) {
          dup++;
        }
        if (r.timestamp() >= kill - 1_000 && r.timestamp() < next) {
          if (previous != Long.MIN_VALUE) {
            longestPause = Math.max(longestPause, r.timestamp() - previous);
          }
          previous = r.timestamp();
        }
      }
      gaps[k] = longestPause / 1e3;
      duplicates[k] = dup;
    }
    Percentiles gap = Percentiles.of(gaps);
    Percentiles dup = Percentiles.of(duplicates);
    double minGap = java.util.Arrays.stream(gaps).min().orElse(Double.NaN);
    LOG.info("{}: takeovers {} gaps {} duplicates {}", stage.prefix(), kills.size(), gap, dup);
    table.add(
        String.format(
            "recovery: CDC leader killed (SIGKILL), standby takes over, %d times at %,d events/s",
            kills.size(), rate),
        String.format(
            "%.1f s median (%.1f-%.1f s) without publishing; %.0f duplicates median (max %.0f)",
            gap.p50(), minGap, gap.max(), dup.p50(), dup.max()),
        "<= 10 s",
        String.format(
            "longest pause in the broker's append times from 1 s before each kill to the next; default cdc.leader.lease and"
                + " renewal; %,d events: %d lost, %d duplicates, %d out of order",
            result.expected(), result.lost(), result.duplicates(), result.outOfOrder()));
  }
}
