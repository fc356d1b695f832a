package io.outboxrelay.bench;

import io.outboxrelay.localstack.KafkaBroker;
import io.outboxrelay.localstack.MariaDbServer;
import io.outboxrelay.relay.testing.OutboxDatabase;
import io.outboxrelay.relay.testing.RelayProcess;
import io.outboxrelay.relay.testing.RelaySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC mode: drain rate of a backlog, steady-state latency from commit to Kafka's append (the ack)
 * at a fixed rate, and the relay process's peak RSS and CPU, with the relay as a child process.
 */
final class CdcBench {

  private static final Logger LOG = LoggerFactory.getLogger(CdcBench.class);

  private final MariaDbServer mariaDb;
  private final KafkaBroker kafka;
  private final Path workDir;
  private final Map<String, String> relayEnv;
  private final Map<String, String> relaySettings;

  CdcBench(
      MariaDbServer mariaDb,
      KafkaBroker kafka,
      Path workDir,
      Map<String, String> relayEnv,
      Map<String, String> relaySettings) {
    this.mariaDb = mariaDb;
    this.kafka = kafka;
    this.workDir = workDir;
    this.relayEnv = relayEnv;
    this.relaySettings = relaySettings;
  }

  void run(ResultTable table, int events, int rate, Duration duration) throws Exception {
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
      relaySettings.forEach(settings::with);
      String retention = relaySettings.getOrDefault("cdc.retention", "0ms");
      String variant = retention.matches("0+[a-z]*") ? "" : " (cdc.retention=" + retention + ")";
      if (!variant.isEmpty()) {
        db.grantPolling(); // retention deletes published rows
      }
      Path config = settings.writeTo(workDir.resolve(name + ".properties"));

      // A first start records the current binlog position; the backlog is written while the
      // relay is stopped.
      RelayProcess first =
          RelayProcess.start(
              name + "-init", workDir, relayEnv, "run", "--config", config.toString());
      first.awaitReady();
      first.process().terminate();
      first.waitFor(Duration.ofSeconds(60));

      Backlog.write(db, 0, backlog);

      RelayProcess relay =
          RelayProcess.start(name, workDir, relayEnv, "run", "--config", config.toString());
      long pid = relay.process().pid();
      relay.awaitReady();
      double cpuAtReady = ProcessStats.cpuSeconds(pid);
      double dbAtReady = ProcessStats.cpuSeconds(mariaDb.pid());
      Map<String, Double> threadsAtReady = ProcessStats.cpuByThread(pid);
      long t0 = System.nanoTime();
      while (counter.count(topics) < backlog) {
        Thread.sleep(10);
      }
      double drainSeconds = (System.nanoTime() - t0) / 1e9;
      double drainCpu = ProcessStats.cpuSeconds(pid) - cpuAtReady;
      LOG.info(
          "relay CPU during the drain by thread:{}",
          ProcessStats.cpuBreakdown(threadsAtReady, ProcessStats.cpuByThread(pid)));
      table.add(
          "CDC drain of a " + String.format("%,d", backlog) + "-event backlog",
          String.format("%,.0f events/s", backlog / drainSeconds),
          ">= 20,000 events/s",
          String.format("%.2f s from ready to the last ack", drainSeconds));
      table.add(
          "CDC relay CPU per 100k events (drain)",
          String.format("%.1f CPU s", drainCpu * 100_000 / backlog),
          "-",
          String.format("%.0f µs per event", drainCpu * 1e6 / backlog));
      double drainDbCpu = ProcessStats.cpuSeconds(mariaDb.pid()) - dbAtReady;
      table.add(
          "MariaDB CPU per event, CDC drain" + variant,
          String.format("%.0f µs", drainDbCpu * 1e6 / backlog),
          "-",
          "mariadbd user+system CPU from ready to the last ack, per event");

      // A burst on a warm relay: the same backlog written as fast as the database takes it while
      // the relay runs; measured from the first insert to the last ack.
      double warmCpu0 = ProcessStats.cpuSeconds(pid);
      double warmDb0 = ProcessStats.cpuSeconds(mariaDb.pid());
      long burstStart = System.nanoTime();
      Backlog.write(db, backlog, backlog);
      while (counter.count(topics) < 2L * backlog) {
        Thread.sleep(10);
      }
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
      backlog = 2 * backlog; // what the latency phase must wait past

      if (duration.isZero()) {
        relay.process().terminate();
        relay.waitFor(Duration.ofSeconds(60));
        return;
      }
      long loadStart = System.nanoTime();
      double loadDb0 = ProcessStats.cpuSeconds(mariaDb.pid());
      long rowsBeforeLoad = db.outboxRows();
      Map<String, Long> commitMillis = SteadyLoad.run(db, rate, duration);
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
      long expected = backlog + (long) commitMillis.size();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (counter.count(topics) < expected && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
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
              rowsBeforeLoad + commitMillis.size() - db.outboxRows(), db.outboxRows(), expected));
      Percentiles latency = LatencyReader.read(kafka.bootstrapServers(), topics, commitMillis);
      table.add(
          "CDC latency commit -> Kafka ack at " + String.format("%,d", rate) + " events/s",
          String.format("p50 %.0f ms, p99 %.0f ms", latency.p50(), latency.p99()),
          "p99 <= 50 ms",
          String.format(
              "%,d events in %.1f s (%,.0f events/s achieved), max %.0f ms",
              latency.count(), loadSeconds, commitMillis.size() / loadSeconds, latency.max()));
      table.add(
          "CDC relay peak RSS",
          String.format("%.0f MiB", ProcessStats.statusMiB(pid, "VmHWM")),
          "<= 400 MB",
          "VmHWM of the relay process, -Xmx" + relayEnv.getOrDefault("OUTBOX_RELAY_HEAP", "256m"));
      // An idle relay: what it costs to wait for events.
      double idleCpu0 = ProcessStats.cpuSeconds(pid);
      Thread.sleep(10_000);
      double idleCpu = ProcessStats.cpuSeconds(pid) - idleCpu0;
      table.add(
          "CDC relay CPU while idle",
          String.format("%.1f%% of one core", idleCpu * 100 / 10),
          "-",
          "10 s without events");
      relay.process().terminate();
      relay.waitFor(Duration.ofSeconds(60));
    }
  }
}
