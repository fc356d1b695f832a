package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
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
 * all takeovers. One MariaDB of its own. Not thread-safe.
 */
final class TakeoverBench {

  private static final Logger LOG = LoggerFactory.getLogger(TakeoverBench.class);
  private static final String AGGREGATE_TYPE = "order";
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";

  private final KafkaBroker kafka;
  private final Path workDir;
  private final Map<String, String> relayEnv;
  private final Map<String, String> relaySettings;

  TakeoverBench(
      KafkaBroker kafka,
      Path workDir,
      Map<String, String> relayEnv,
      Map<String, String> relaySettings) {
    this.kafka = kafka;
    this.workDir = workDir;
    this.relayEnv = relayEnv;
    this.relaySettings = relaySettings;
  }

  void run(ResultTable table, int takeovers, int rate, Duration load) throws Exception {
    String name = "bench-takeover-" + Long.toHexString(System.nanoTime() & 0xffff);
    String prefix = RelaySettings.topicPrefix(name);
    List<Long> kills = new ArrayList<>();
    Ledger ledger = new Ledger(prefix);
    try (MariaDbServer mariaDb = MariaDbServer.builder().start();
        OutboxDatabase db = OutboxDatabase.on(mariaDb);
        TopicCounter counter = new TopicCounter(kafka.bootstrapServers())) {
      counter.createLogAppendTimeTopics(List.of(prefix + AGGREGATE_TYPE), 3);
      RelaySettings settings = RelaySettings.cdc(db, kafka.bootstrapServers(), name);
      relaySettings.forEach(settings::with);
      Path config = settings.writeTo(workDir.resolve(name + ".properties"));
      List<RelayProcess> relays = new ArrayList<>();
      try {
        RelayProcess leader = start(name, 1, config, relays);
        leader.awaitReady();
        RelayProcess standby = start(name, 2, config, relays);
        int threads = Math.max(2, (rate + 99) / 100);
        try (SteadyWriter writer =
            SteadyWriter.start(db, ledger, AGGREGATE_TYPE, rate, 2_000, threads)) {
          Thread.sleep(load.toMillis());
          for (int i = 0; i < takeovers; i++) {
            System.err.println("  takeover " + (i + 1) + " of " + takeovers + "...");
            kills.add(System.currentTimeMillis());
            leader.process().kill();
            leader.waitFor(Duration.ofSeconds(30));
            standby.awaitReady();
            leader = standby;
            standby = start(name, relays.size() + 1, config, relays);
            Thread.sleep(load.toMillis());
          }
          writer.stop(Duration.ofSeconds(120));
        }
        reader(prefix).readUntil(ledger::allArrived, Duration.ofSeconds(120));
      } finally {
        for (RelayProcess relay : relays) {
          relay.close();
        }
      }
      report(table, rate, prefix, ledger, kills);
    }
  }

  private RelayProcess start(String name, int n, Path config, List<RelayProcess> relays) {
    RelayProcess p =
        RelayProcess.start(name + "-" + n, workDir, relayEnv, "run", "--config", config.toString());
    relays.add(p);
    p.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
    return p;
  }

  private TopicReader reader(String prefix) {
    return TopicReader.forPattern(
        kafka.bootstrapServers(), Pattern.compile(Pattern.quote(prefix) + ".*"));
  }

  private void report(ResultTable table, int rate, String prefix, Ledger ledger, List<Long> kills) {
    List<ConsumedRecord> records =
        new ArrayList<>(reader(prefix).readAll(Duration.ofSeconds(3), Duration.ofSeconds(120)));
    records.sort(Comparator.comparingLong(ConsumedRecord::timestamp));
    Ledger.Result result = ledger.check(records);
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
    LOG.info("{}: takeovers {} gaps {} duplicates {}", prefix, kills.size(), gap, dup);
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
