package io.outboxrelay.bench;

import io.outboxrelay.relay.config.DeliveryGuarantee;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once group: the relay in CDC mode with each {@code delivery.guarantee}, in alternated
 * rounds (the order reversed every round: at-least-once, exactly-once, exactly-once,
 * at-least-once...), each run on a fresh outbox database of the shared MariaDB and fresh topics
 * (three partitions, {@code LogAppendTime}). Per run: a first start records the binlog position,
 * the backlog is written while the relay is stopped, the relay started again and timed from its
 * ready line until a {@code read_committed} consumer ({@link VisibleReader}) has seen the whole
 * backlog; then, on the same relay, a steady load at a fixed rate, each event timed from its commit
 * to the moment the consumer saw it, and the relay's CPU over both. Then {@link GuaranteeFaultRun}
 * per guarantee. Not thread-safe.
 */
final class GuaranteeBench {

  private static final Logger LOG = LoggerFactory.getLogger(GuaranteeBench.class);
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration TAIL_TIMEOUT = Duration.ofSeconds(60);

  private final BenchEnv env;

  GuaranteeBench(BenchEnv env) {
    this.env = env;
  }

  /** The relay's settings for a guarantee: CDC with its defaults otherwise. */
  static RelaySettings settings(
      DeliveryGuarantee guarantee, SourceDatabase db, String bootstrap, String name) {
    return RelaySettings.cdc(db, bootstrap, name)
        .with("relay.stats.interval", "10s")
        .with("delivery.guarantee", configName(guarantee));
  }

  /** The guarantee as {@code delivery.guarantee} spells it, e.g. {@code exactly-once}. */
  static String configName(DeliveryGuarantee guarantee) {
    return guarantee.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * Runs the group.
   *
   * @param guarantees the guarantees compared, in the first round's order
   * @param rounds runs per guarantee
   * @param events the backlog of each run
   * @param rate events per second of the steady load
   * @param load how long the steady load writes (zero: no steady load)
   * @param faultRuns fault runs per guarantee (0: none)
   * @param faultRate events per second the application writes in the fault runs
   * @param faultGap load before, between and after the faults
   */
  void run(
      GuaranteeTable table,
      List<DeliveryGuarantee> guarantees,
      int rounds,
      int events,
      int rate,
      Duration load,
      int faultRuns,
      int faultRate,
      Duration faultGap)
      throws Exception {
    try (TopicCounter counter = new TopicCounter(env.bootstrapServers())) {
      Percentiles probe = VisibleReader.proveReadCommitted(env.bootstrapServers(), counter);
      System.err.printf(
          "  exactly-once: the consumer saw no record of an open transaction for 1 s; a committed"
              + " one %.0f ms (median; max %.0f) after commitTransaction() returned%n",
          probe.p50(), probe.max());
      table.probe(probe);
    }
    table.conditions(events, rate, load.toSeconds(), faultRate, faultGap.toSeconds());
    for (int round = 1; round <= rounds; round++) {
      for (DeliveryGuarantee g : order(guarantees, round)) {
        Quiet.await(env.mariaDb(), "exactly-once: " + configName(g) + ", round " + round);
        System.err.println("  exactly-once: " + configName(g) + ", round " + round + "...");
        GuaranteeRun run = runOne(g, round, events, rate, load);
        LOG.info("{}", run);
        table.add(run);
      }
    }
    for (int n = 1; n <= faultRuns; n++) {
      for (DeliveryGuarantee g : order(guarantees, n)) {
        System.err.println("  exactly-once: fault run " + n + ", " + configName(g) + "...");
        table.addFaults(new GuaranteeFaultRun(env).run(g, n, faultRate, faultGap));
      }
    }
  }

  /** The guarantees in round {@code round}'s order: as given in odd rounds, reversed in even. */
  static List<DeliveryGuarantee> order(List<DeliveryGuarantee> guarantees, int round) {
    List<DeliveryGuarantee> order = new ArrayList<>(guarantees);
    if (round % 2 == 0) {
      Collections.reverse(order);
    }
    return order;
  }

  private GuaranteeRun runOne(
      DeliveryGuarantee guarantee, int round, int events, int rate, Duration load)
      throws Exception {
    String name =
        "bench-eos-"
            + (guarantee == DeliveryGuarantee.EXACTLY_ONCE ? "eo" : "alo")
            + round
            + "-"
            + Long.toHexString(System.nanoTime() & 0xffff);
    String bootstrap = env.bootstrapServers();
    try (OutboxDatabase db = OutboxDatabase.on(env.mariaDb());
        TopicCounter counter = new TopicCounter(bootstrap)) {
      List<String> topics =
          BenchEvents.AGGREGATE_TYPES.stream()
              .map(t -> RelaySettings.topicPrefix(name) + t)
              .toList();
      counter.createLogAppendTimeTopics(topics, 3);
      Path config = env.writeConfig(settings(guarantee, db, bootstrap, name), name);

      recordPosition(name, config); // the backlog is written while the relay is stopped
      List<TestEvent> backlog = BenchEvents.batch(0, events);
      Backlog.write(db, backlog);
      Set<String> expected = new HashSet<>();
      backlog.forEach(e -> expected.add(e.eventId()));

      try (VisibleReader reader = new VisibleReader(bootstrap, topics)) {
        long startMillis = System.currentTimeMillis();
        RelayProcess relay = env.startRelay(name, config);
        try {
          long pid = relay.process().pid();
          relay.awaitReady();
          long readyMillis = System.currentTimeMillis();
          double cpuAtReady = ProcessStats.cpuSeconds(pid);
          if (!reader.awaitRecords(events, DRAIN_TIMEOUT)) {
            LOG.warn("{}: {} of {} backlog events visible", name, reader.distinct(), events);
          }
          double drainSeconds = (reader.lastVisibleMillis() - readyMillis) / 1e3;
          double drainCpu = ProcessStats.cpuSeconds(pid) - cpuAtReady;

          Map<String, Long> commits = Map.of();
          double steadySeconds = 0;
          double steadyCpu = 0;
          if (!load.isZero()) {
            double cpu0 = ProcessStats.cpuSeconds(pid);
            long loadStart = System.nanoTime();
            commits = SteadyLoad.run(db, rate, load);
            steadySeconds = (System.nanoTime() - loadStart) / 1e9;
            expected.addAll(commits.keySet());
            if (!reader.awaitRecords(expected.size(), TAIL_TIMEOUT)) {
              LOG.warn("{}: {} of {} events visible", name, reader.distinct(), expected.size());
            }
            steadyCpu = ProcessStats.cpuSeconds(pid) - cpu0;
          }
          Percentiles[] latency = latencies(reader, commits);
          long missing = expected.stream().filter(id -> reader.seen(id) == null).count();
          if (reader.withoutId() > 0) {
            LOG.warn("{}: {} records without an id header", name, reader.withoutId());
          }
          return new GuaranteeRun(
              guarantee,
              round,
              events,
              (readyMillis - startMillis) / 1e3,
              drainSeconds,
              drainCpu,
              commits.size(),
              steadySeconds,
              steadyCpu,
              latency[0],
              latency[1],
              missing,
              reader.records() - reader.withoutId() - reader.distinct(),
              ProcessStats.statusMiB(pid, "VmHWM"));
        } finally {
          relay.process().terminate();
          relay.waitFor(Duration.ofSeconds(60));
        }
      }
    }
  }

  /**
   * A first start records the binlog position (with exactly-once, also in Kafka, under the run's
   * transactional id); then the relay stops (SIGTERM).
   */
  private void recordPosition(String name, Path config) {
    RelayProcess first = env.startRelay(name + "-init", config);
    first.awaitReady();
    first.process().terminate();
    first.waitFor(Duration.ofSeconds(60));
  }

  /**
   * The steady load's latencies: from each event's commit to the moment the consumer saw it, and to
   * the broker's append of its record.
   *
   * @return {visible, append}, in milliseconds
   */
  private static Percentiles[] latencies(VisibleReader reader, Map<String, Long> commits) {
    double[] visible = new double[commits.size()];
    double[] append = new double[commits.size()];
    int n = 0;
    for (Map.Entry<String, Long> e : commits.entrySet()) {
      VisibleReader.Seen seen = reader.seen(e.getKey());
      if (seen != null) {
        visible[n] = seen.visibleMillis() - e.getValue();
        append[n++] = seen.appendMillis() - e.getValue();
      }
    }
    return new Percentiles[] {
      Percentiles.of(java.util.Arrays.copyOf(visible, n)),
      Percentiles.of(java.util.Arrays.copyOf(append, n))
    };
  }
}
