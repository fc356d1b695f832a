package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peers group (and the pg-cdc group): the relay beside what a user would run instead, each on
 * its own fresh outbox database of the {@link PeerSource}'s server (the shared MariaDB, or a
 * private PostgreSQL) and its own topics (three partitions, {@code LogAppendTime}), with the same
 * backlog rows and the same steady load. Per pipeline and round: the first start records where the
 * log ends (the binlog's position, or a new replication slot's; one event written and published
 * proves it), the pipeline is stopped, the backlog written, the pipeline started again and timed
 * from its process start to the broker's append of the backlog's first and last event; then a
 * steady load at a fixed rate for its latency. The pipeline JVM's CPU and peak RSS come from /proc.
 * Every event is then looked up by id on the topics and compared with its row: a pipeline that lost
 * one, or published one otherwise, has no figures. Rounds alternate the pipelines' order. A
 * pipeline that cannot run here (its distribution could not be downloaded, no Java runtime it needs
 * is installed) is named with the reason, and the others run.
 */
final class PeerBench {

  private static final Logger LOG = LoggerFactory.getLogger(PeerBench.class);

  /** How long each round watches the pipeline with no event to publish, after the last one. */
  static final Duration IDLE = Duration.ofSeconds(20);

  private final BenchEnv env;
  private final PeerOptions options;
  private final PeerSource source;

  PeerBench(BenchEnv env, PeerOptions options, PeerSource source) {
    this.env = env;
    this.options = options;
    this.source = source;
  }

  void run(PeerTable table, List<Peer> peers, int rounds, int events, int rate, Duration duration)
      throws Exception {
    List<TestEvent> backlog = BenchEvents.batch(0, events);
    table.conditions(events, rate, duration.toSeconds());
    Map<Peer, Peer.Prepared> prepared = new LinkedHashMap<>();
    for (Peer peer : peers) {
      try {
        prepared.put(peer, peer.prepare(env, options, source));
        table.setup(peer, prepared.get(peer).setup());
      } catch (PeerUnavailableException e) {
        System.err.println(
            "peers: " + peer.label() + " cannot run: " + e.getMessage() + "; running the others");
        table.unavailable(peer, e.getMessage());
      }
    }
    warmUpBroker(events);
    for (int round = 1; round <= rounds; round++) {
      List<Peer> order = new ArrayList<>(prepared.keySet());
      if (round % 2 == 0) {
        Collections.reverse(order);
      }
      for (Peer peer : order) {
        source.awaitQuiet("peers: " + peer.id() + ", round " + round);
        PeerResult result = runOne(peer, prepared.get(peer), round, backlog, rate, duration);
        LOG.info("{} round {}: {}", peer.id(), round, result.audit().describe());
        table.add(result);
      }
    }
  }

  /**
   * Sends the broker as many records as a backlog before the first round. The benchmark's broker
   * keeps the JVM's default compilers, and its first heavy load is compiled while it runs: the
   * pipeline that came first paid for it (a first relay round measured 40 µs of broker CPU per
   * event against 9-22 in the rounds after, and drained half as fast).
   */
  private void warmUpBroker(int events) throws Exception {
    String topic = "bench-broker-warm-up-" + Long.toHexString(System.nanoTime() & 0xffffff);
    int records = Math.max(10_000, events);
    long begin = System.nanoTime();
    EventTopic.fill(env.bootstrapServers(), topic, records);
    LOG.info(
        "the broker took {} records before the first round, in {} ms",
        records,
        (System.nanoTime() - begin) / 1_000_000);
  }

  private PeerResult runOne(
      Peer peer,
      Peer.Prepared prepared,
      int round,
      List<TestEvent> backlog,
      int rate,
      Duration duration)
      throws Exception {
    String name = "peer-" + peer.id() + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    String prefix = RelaySettings.topicPrefix(name);
    List<String> topics = BenchEvents.AGGREGATE_TYPES.stream().map(t -> prefix + t).toList();
    try (OutboxDatabase db = source.newDatabase();
        TopicCounter counter = new TopicCounter(env.bootstrapServers())) {
      counter.createLogAppendTimeTopics(topics, 3);
      Pipeline pipeline = prepared.factory().create(db, name, prefix);
      Set<String> expected = new HashSet<>();
      expected.add(prime(pipeline, name, db, counter, topics));

      Backlog.write(db, backlog);
      backlog.forEach(e -> expected.add(e.eventId()));
      source.awaitQuiet("the " + peer.id() + " drain");
      long startedMillis = System.currentTimeMillis();
      Pipeline.Started started = pipeline.start(name + "-r" + round);
      try {
        long pid = started.pid();
        Drain cpu = drain(counter, topics, pid, 1L + backlog.size());
        if (cpu.machine() != null) {
          LOG.info(
              "{} round {}: drain, the machine's CPU by process: {}",
              peer.id(),
              round,
              cpu.machine());
        }
        TopicCounter.AppendTimes appended = counter.appendTimes(topics, startedMillis);
        double firstEvent = (appended.first() - startedMillis) / 1e3;
        double drainSeconds = (appended.last() - appended.first()) / 1e3;
        double withStart = (appended.last() - startedMillis) / 1e3;

        Map<String, Long> commits = Map.of();
        double steadySeconds = Double.NaN;
        double steadyCpu = Double.NaN;
        double machineCores = Double.NaN;
        double databaseCores = Double.NaN;
        if (!duration.isZero()) {
          MachineCpu machine = new MachineCpu(Map.of());
          double cpu0 = ProcessStats.cpuSeconds(pid);
          Map<String, Double> steadyThreads0 = ProcessStats.cpuByThread(pid);
          double database0 = ProcessStats.treeCpuSeconds(source.databasePid());
          MachineCpu.Reading machine0 = machine.read();
          long t0 = System.nanoTime();
          commits = SteadyLoad.run(db, rate, duration);
          steadySeconds = (System.nanoTime() - t0) / 1e9;
          counter.awaitCount(topics, 1L + backlog.size() + commits.size(), Duration.ofSeconds(60));
          steadyCpu = ProcessStats.cpuSeconds(pid) - cpu0;
          LOG.info(
              "{} round {}: steady load, CPU by thread:{}",
              peer.id(),
              round,
              ProcessStats.cpuBreakdown(steadyThreads0, ProcessStats.cpuByThread(pid)));
          MachineCpu.Reading machine1 = machine.read();
          double span = (machine1.nanos() - machine0.nanos()) / 1e9;
          machineCores = (machine1.busy() - machine0.busy()) / span;
          databaseCores = (ProcessStats.treeCpuSeconds(source.databasePid()) - database0) / span;
          expected.addAll(commits.keySet());
        }
        double rss = ProcessStats.statusMiB(pid, "VmHWM");
        // What waiting costs: most of a relay's life is spent with nothing to publish.
        Map<String, Double> threads0 = ProcessStats.cpuByThread(pid);
        double idle0 = ProcessStats.cpuSeconds(pid);
        long idleStart = System.nanoTime();
        Thread.sleep(IDLE.toMillis());
        double idleCores =
            (ProcessStats.cpuSeconds(pid) - idle0) / ((System.nanoTime() - idleStart) / 1e9);
        LOG.info(
            "{} round {}: idle {} s, {}% of a core, by thread:{}",
            peer.id(),
            round,
            IDLE.toSeconds(),
            String.format(java.util.Locale.ROOT, "%.1f", idleCores * 100),
            ProcessStats.cpuBreakdown(threads0, ProcessStats.cpuByThread(pid)));
        TopicAudit audit =
            TopicAudit.read(
                env.bootstrapServers(), topics, prefix, expected, TopicAudit.rows(db), commits);
        if (!commits.isEmpty()) {
          // The whole load's p99 hides whether its tail is one stall or a recurring one.
          LOG.info(
              "{} round {}: steady load, p99 per second by commit time (ms): {}",
              peer.id(),
              round,
              LatencyReader.p99s(audit.latencyPerSecond()));
        }
        return new PeerResult(
            peer,
            round,
            backlog.size(),
            firstEvent,
            backlog.size() / drainSeconds,
            backlog.size() / withStart,
            cpu.atFirst(),
            cpu.atLast() - cpu.atFirst(),
            cpu.machineSeconds(),
            cpu.databaseSeconds(),
            commits.size(),
            steadySeconds,
            steadyCpu,
            machineCores,
            databaseCores,
            rss,
            idleCores * 100,
            audit);
      } finally {
        started.stop();
      }
    }
  }

  /**
   * The pipeline's first start: it records where the log ends, publishes one event written after
   * that, and stores its position when stopped.
   *
   * @return the event's id
   */
  private static String prime(
      Pipeline pipeline, String name, OutboxDatabase db, TopicCounter counter, List<String> topics)
      throws Exception {
    Pipeline.Started first = pipeline.start(name + "-init");
    try {
      first.awaitCapturing();
      TestEvent event = BenchEvents.next(0);
      try (Connection c = db.app()) {
        RawOutboxInserts.writeTransaction(c, List.of(event));
      }
      if (!counter.awaitCount(topics, 1, Duration.ofSeconds(120))) {
        throw new IllegalStateException(
            name + " did not publish its first event within 120 s: see its log");
      }
      return event.eventId();
    } finally {
      first.stop();
    }
  }

  /**
   * CPU over a drain, between the first record beyond the primed one and the last: the pipeline
   * JVM's, the whole machine's (every core, every process) and the database server's with its
   * children (PostgreSQL's walsender and backends), in seconds; {@code NaN} where the drain did not
   * get that far.
   *
   * @param atFirst the pipeline JVM's CPU seconds when the first record arrived
   * @param atLast the same when the last did
   * @param machineSeconds the machine's busy CPU seconds in between
   * @param databaseSeconds the database tree's CPU seconds in between
   * @param machine each process's share in between ({@link MachineCpu#shares}), or {@code null}
   */
  private record Drain(
      double atFirst,
      double atLast,
      double machineSeconds,
      double databaseSeconds,
      String machine) {}

  /**
   * Waits for {@code expected} records, polling every 10 ms, and reads the CPU when the first
   * record beyond the primed one arrives and when the last does. On 2 cores a drain keeps the whole
   * machine busy, so what it costs every process per event, not the pipeline's alone, sets how fast
   * it can go.
   */
  private Drain drain(TopicCounter counter, List<String> topics, long pid, long expected)
      throws InterruptedException {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("pipeline", pid);
    pids.put("Kafka broker", env.kafka().pid());
    pids.put("benchmark", ProcessHandle.current().pid());
    MachineCpu machine = new MachineCpu(pids);
    MachineCpu.Reading first = null;
    double databaseAtFirst = Double.NaN;
    long deadline = System.nanoTime() + Duration.ofSeconds(60 + expected / 1_000).toNanos();
    while (System.nanoTime() < deadline) {
      long count = counter.count(topics);
      if (count > 1 && first == null) {
        first = machine.read();
        databaseAtFirst = ProcessStats.treeCpuSeconds(source.databasePid());
      }
      if (count >= expected) {
        MachineCpu.Reading last = machine.read();
        double database = ProcessStats.treeCpuSeconds(source.databasePid()) - databaseAtFirst;
        long events = expected - 1;
        return new Drain(
            first.processes().get("pipeline"),
            last.processes().get("pipeline"),
            last.busy() - first.busy(),
            database,
            MachineCpu.shares(first, last, events)
                + String.format(
                    Locale.ROOT,
                    "; the database's processes %.0f µs/event (in the rest)",
                    database * 1e6 / events));
      }
      Thread.sleep(10);
    }
    LOG.warn("the drain did not complete: {} of {} records", counter.count(topics), expected);
    return new Drain(
        first == null ? Double.NaN : first.processes().get("pipeline"),
        Double.NaN,
        Double.NaN,
        Double.NaN,
        null);
  }
}
