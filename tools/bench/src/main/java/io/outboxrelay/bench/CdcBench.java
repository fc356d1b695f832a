package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC mode: drain rate of a backlog (from ready, and from the process start), the time from the
 * process start to the first event published from a waiting backlog, the peak RSS through one large
 * transaction, steady-state latency from commit to Kafka's append (the ack) at a fixed rate with
 * its p99 per 5-second window, and the relay process's CPU, with the relay as a child process.
 */
final class CdcBench {

  private static final Logger LOG = LoggerFactory.getLogger(CdcBench.class);

  private final BenchEnv env;
  private final MariaDbServer mariaDb;
  private final KafkaBroker kafka;

  CdcBench(BenchEnv env) {
    this.env = env;
    this.mariaDb = env.mariaDb();
    this.kafka = env.kafka();
  }

  /** The width of the latency windows: a spike that recurs every ~10 s shows in every other one. */
  static final Duration WINDOW = Duration.ofSeconds(5);

  /** A run's outbox database and the topics its events go to, counted by one counter. */
  record Outbox(OutboxDatabase db, TopicCounter counter, List<String> topics) {

    void awaitCount(long count) throws InterruptedException {
      counter.awaitCount(topics, count);
    }

    long count() throws InterruptedException {
      return counter.count(topics);
    }

    TopicCounter.AppendTimes appendTimes(long fromMillis) throws Exception {
      return counter.appendTimes(topics, fromMillis);
    }
  }

  /**
   * @param starts how many more times the relay is stopped and started on a backlog of {@value
   *     CdcStarts#BACKLOG} events, for the spread of the start-to-first-event time, from the built
   *     distribution and from an installed copy each (0: none; see {@link CdcStarts})
   * @param bigTransaction rows of the one transaction written while the relay runs (0: none)
   */
  void run(
      ResultTable table, int events, int rate, Duration duration, int starts, int bigTransaction)
      throws Exception {
    int backlog = events;
    String name = "bench-cdc-" + Long.toHexString(System.nanoTime() & 0xffff);
    try (OutboxDatabase db = OutboxDatabase.on(mariaDb);
        TopicCounter counter = new TopicCounter(kafka.bootstrapServers())) {
      List<String> topics =
          BenchEvents.AGGREGATE_TYPES.stream()
              .map(t -> RelaySettings.topicPrefix(name) + t)
              .toList();
      counter.createLogAppendTimeTopics(topics, 3);
      RelaySettings settings =
          RelaySettings.cdc(db, kafka.bootstrapServers(), name).with("relay.stats.interval", "10s");
      String retention = env.relaySettings().getOrDefault("cdc.retention", "0ms");
      String variant = retention.matches("0+[a-z]*") ? "" : " (cdc.retention=" + retention + ")";
      if (!variant.isEmpty()) {
        db.grantPolling(); // retention deletes published rows
      }
      Path config = env.writeConfig(settings, name);

      // A first start records the current binlog position; the backlog is written while the
      // relay is stopped.
      RelayProcess first = env.startRelay(name + "-init", config);
      first.awaitReady();
      first.process().terminate();
      first.waitFor(Duration.ofSeconds(60));

      Backlog.write(db, 0, backlog);

      MachineCpu.Reading atStart = stack(0).read();
      long startedMillis = System.currentTimeMillis();
      RelayProcess relay = env.startRelay(name, config);
      long pid = relay.process().pid();
      MachineCpu machine = stack(pid);
      relay.awaitReady();
      long readyMillis = System.currentTimeMillis();
      MachineCpu.Reading atReady = machine.read();
      double cpuAtReady = ProcessStats.cpuSeconds(pid);
      double dbAtReady = ProcessStats.cpuSeconds(mariaDb.pid());
      Map<String, Double> threadsAtReady = ProcessStats.cpuByThread(pid);
      LOG.info(
          "relay CPU from its start to ready by thread:{}",
          ProcessStats.cpuBreakdown(Map.of(), threadsAtReady));
      long t0 = System.nanoTime();
      counter.awaitCount(topics, backlog);
      double drainSeconds = (System.nanoTime() - t0) / 1e9;
      double drainCpu = ProcessStats.cpuSeconds(pid) - cpuAtReady;
      MachineCpu.Reading drained = machine.read();
      TopicCounter.AppendTimes appended = counter.appendTimes(topics, startedMillis);
      double drainRss = ProcessStats.statusMiB(pid, "VmHWM");
      LOG.info(
          "relay CPU during the drain by thread:{}",
          ProcessStats.cpuBreakdown(threadsAtReady, ProcessStats.cpuByThread(pid)));
      table.add(
          "CDC drain of a " + String.format("%,d", backlog) + "-event backlog",
          String.format("%,.0f events/s", backlog / drainSeconds),
          ">= 20,000 events/s",
          String.format("%.2f s from ready to the last ack", drainSeconds));
      table.add(
          "CDC start to first event, backlog waiting",
          String.format("%.2f s", (appended.first() - startedMillis) / 1e3),
          "<= 1.0 s",
          String.format(
              "process start to the broker's append of the first event; ready after %.2f s, %.1f"
                  + " CPU s",
              (readyMillis - startedMillis) / 1e3, cpuAtReady));
      table.add(
          "CDC drain of a " + String.format("%,d", backlog) + "-event backlog, start included",
          String.format("%,.0f events/s", backlog * 1e3 / (appended.last() - startedMillis)),
          "-",
          String.format(
              "%.2f s from the process start to the last append; %.1f CPU s",
              (appended.last() - startedMillis) / 1e3, ProcessStats.cpuSeconds(pid)));
      table.add(
          "CDC relay CPU per 100k events (drain)",
          String.format("%.1f CPU s", drainCpu * 100_000 / backlog),
          "-",
          String.format("%.0f µs per event", drainCpu * 1e6 / backlog));
      machineRows(table, atStart, atReady, drained, backlog);
      double drainDbCpu = ProcessStats.cpuSeconds(mariaDb.pid()) - dbAtReady;
      table.add(
          "MariaDB CPU per event, CDC drain" + variant,
          String.format("%.0f µs", drainDbCpu * 1e6 / backlog),
          "-",
          "mariadbd user+system CPU from ready to the last ack, per event");

      Outbox outbox = new Outbox(db, counter, topics);
      burst(table, outbox, pid, backlog, variant);
      backlog = 2 * backlog; // what the latency phase must wait past
      table.add(
          "CDC relay peak RSS, drain and burst",
          String.format("%.0f MiB", ProcessStats.statusMiB(pid, "VmHWM")),
          "<= 300 MB",
          String.format(
              "VmHWM of the relay process, -Xmx%s; %.0f MiB at the end of the drain",
              env.relayEnv().getOrDefault("OUTBOX_RELAY_HEAP", "256m"), drainRss));

      if (bigTransaction > 0) {
        bigTransaction(table, outbox, pid, backlog, bigTransaction);
        backlog += bigTransaction;
      }

      if (!duration.isZero()) {
        steadyLoad(table, outbox, relay, backlog, rate, duration, variant);
      }
      relay.process().terminate();
      relay.waitFor(Duration.ofSeconds(60));
      if (starts > 0) {
        new CdcStarts(env).run(table, outbox, config, name, starts);
      }
    }
  }

  /** The stack's processes, the relay's first ({@code relayPid} 0: not started yet). */
  private MachineCpu stack(long relayPid) {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("relay", relayPid);
    pids.put("Kafka broker", kafka.pid());
    pids.put("MariaDB", mariaDb.pid());
    pids.put("benchmark", ProcessHandle.current().pid());
    return new MachineCpu(pids);
  }

  /**
   * Where the machine's CPU went from the relay's start to ready, and through the drain: what
   * bounds both on a machine whose cores the relay shares with the broker and the database.
   */
  private static void machineRows(
      ResultTable table,
      MachineCpu.Reading atStart,
      MachineCpu.Reading atReady,
      MachineCpu.Reading drained,
      int backlog) {
    table.add(
        "Machine CPU, CDC start to ready",
        MachineCpu.cores(atStart, atReady) + " busy",
        "-",
        "in cores, with each process's share of the busy CPU: "
            + MachineCpu.shares(atStart, atReady, 0));
    table.add(
        "Machine CPU, CDC drain",
        MachineCpu.cores(atReady, drained) + " busy",
        "-",
        "from ready to the last ack, in cores, with each process's share of the busy CPU: "
            + MachineCpu.shares(atReady, drained, backlog));
  }

  /**
   * A burst on a warm relay: the same backlog written as fast as the database takes it while the
   * relay runs; measured from the first insert to the last ack.
   */
  private void burst(ResultTable table, Outbox outbox, long pid, int backlog, String variant)
      throws Exception {
    double warmCpu0 = ProcessStats.cpuSeconds(pid);
    double warmDb0 = ProcessStats.cpuSeconds(mariaDb.pid());
    long burstStart = System.nanoTime();
    Backlog.write(outbox.db(), backlog, backlog);
    outbox.awaitCount(2L * backlog);
    double burstSeconds = (System.nanoTime() - burstStart) / 1e9;
    double burstCpu = ProcessStats.cpuSeconds(pid) - warmCpu0;
    table.add(
        "CDC burst of " + String.format("%,d", backlog) + " events on a warm relay",
        String.format("%,.0f events/s", backlog / burstSeconds),
        "-",
        String.format(
            "%.2f s from the first insert to the last ack; %.0f µs relay CPU per event",
            burstSeconds, burstCpu * 1e6 / backlog));
    table.add(
        "MariaDB CPU per event, CDC burst" + variant,
        String.format(
            "%.0f µs", (ProcessStats.cpuSeconds(mariaDb.pid()) - warmDb0) * 1e6 / backlog),
        "-",
        "mariadbd CPU from the first insert to the last ack (the inserts included), per event");
  }

  /** One transaction of {@code rows} rows while the relay runs: the relay's peak RSS through it. */
  private void bigTransaction(ResultTable table, Outbox outbox, long pid, int backlog, int rows)
      throws Exception {
    double rssBefore = ProcessStats.statusMiB(pid, "VmRSS");
    long bigStart = System.nanoTime();
    Backlog.writeOneTransaction(outbox.db(), backlog, rows);
    outbox.awaitCount(backlog + (long) rows);
    double bigSeconds = (System.nanoTime() - bigStart) / 1e9;
    table.add(
        "CDC relay peak RSS, one " + String.format("%,d", rows) + "-row transaction",
        String.format("%.0f MiB", ProcessStats.statusMiB(pid, "VmHWM")),
        "<= 300 MB",
        String.format(
            "VmHWM after it; VmRSS %.0f MiB before, %.0f MiB after; %.1f s from the first"
                + " insert to the last ack",
            rssBefore, ProcessStats.statusMiB(pid, "VmRSS"), bigSeconds));
  }

  /** A steady load: latency from commit to append, per window, then the idle relay's CPU. */
  private void steadyLoad(
      ResultTable table,
      Outbox outbox,
      RelayProcess relay,
      int backlog,
      int rate,
      Duration duration,
      String variant)
      throws Exception {
    long pid = relay.process().pid();
    long loadStartMillis = System.currentTimeMillis();
    long loadStart = System.nanoTime();
    double loadDb0 = ProcessStats.cpuSeconds(mariaDb.pid());
    long rowsBeforeLoad = outbox.db().outboxRows();
    MachineCpu machine = stack(pid);
    MachineCpu.Reading beforeLoad = machine.read();
    Map<String, Long> commitMillis = SteadyLoad.run(outbox.db(), rate, duration);
    MachineCpu.Reading afterLoad = machine.read();
    double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
    long expected = backlog + (long) commitMillis.size();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (outbox.count() < expected && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    long loadEndMillis = System.currentTimeMillis();
    double loadDbCpu = ProcessStats.cpuSeconds(mariaDb.pid()) - loadDb0;
    table.add(
        "MariaDB CPU per event, CDC steady load at "
            + String.format("%,d", rate)
            + " events/s"
            + variant,
        String.format("%.0f µs", loadDbCpu * 1e6 / Math.max(1, commitMillis.size())),
        "-",
        String.format(
            "mariadbd CPU from the first insert to the last ack (inserts included); %,d rows"
                + " deleted meanwhile, %,d left of %,d written",
            rowsBeforeLoad + commitMillis.size() - outbox.db().outboxRows(),
            outbox.db().outboxRows(),
            expected));
    table.add(
        "Machine CPU, CDC steady load at " + String.format("%,d", rate) + " events/s",
        MachineCpu.cores(beforeLoad, afterLoad) + " busy",
        "-",
        "while the load ran, in cores, with each process's share of the busy CPU (the benchmark"
            + " writes the load): "
            + MachineCpu.shares(beforeLoad, afterLoad, commitMillis.size()));
    LatencyReader.Samples samples =
        LatencyReader.readSamples(kafka.bootstrapServers(), outbox.topics(), commitMillis);
    Percentiles latency = samples.percentiles();
    List<Percentiles> windows = samples.windows(WINDOW);
    for (int i = 0; i < windows.size(); i++) {
      Percentiles w = windows.get(i);
      LOG.info(
          "latency window {}-{} s: {} events, p50 {} ms, p99 {} ms, max {} ms",
          i * WINDOW.toSeconds(),
          (i + 1) * WINDOW.toSeconds(),
          w.count(),
          String.format("%.0f", w.p50()),
          String.format("%.0f", w.p99()),
          String.format("%.0f", w.max()));
    }
    table.add(
        "CDC latency commit -> Kafka ack at " + String.format("%,d", rate) + " events/s",
        String.format("p50 %.0f ms, p99 %.0f ms", latency.p50(), latency.p99()),
        "p99 <= 30 ms",
        String.format(
            "%,d events in %.1f s (%,.0f events/s achieved), max %.0f ms",
            latency.count(), loadSeconds, commitMillis.size() / loadSeconds, latency.max()));
    AckTimes acks = AckTimes.within(relay.log(), loadStartMillis, loadEndMillis);
    table.add(
        "CDC relay wait for Kafka's ack at " + String.format("%,d", rate) + " events/s",
        acks.batches() == 0 ? "-" : String.format("%.1f ms", acks.avgAckMillis()),
        "-",
        acks.describe()
            + "; the rest of the latency is the binlog's delivery and the wait for"
            + " the batch before");
    table.add(
        "CDC latency p99 per " + WINDOW.toSeconds() + " s window",
        String.format("max %.0f ms", LatencyReader.maxP99(windows, rate)),
        "<= 50 ms in every window",
        "p99 of each window by commit time, in ms: " + LatencyReader.p99s(windows));
    table.add(
        "CDC relay peak RSS",
        String.format("%.0f MiB", ProcessStats.statusMiB(pid, "VmHWM")),
        "<= 300 MB",
        "VmHWM of the relay process, -Xmx"
            + env.relayEnv().getOrDefault("OUTBOX_RELAY_HEAP", "256m"));
    // An idle relay: what it costs to wait for events.
    double idleCpu0 = ProcessStats.cpuSeconds(pid);
    Thread.sleep(10_000);
    double idleCpu = ProcessStats.cpuSeconds(pid) - idleCpu0;
    table.add(
        "CDC relay CPU while idle",
        String.format("%.1f%% of one core", idleCpu * 100 / 10),
        "-",
        "10 s without events");
  }
}
