package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RelayProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polling mode: how fast the relay drains a backlog that is in the table before it starts, with 1,
 * 4 and 8 workers (or the counts given), each run on a fresh database and fresh topics, with the
 * default batch size and ordering; and the relay's CPU per event during each drain.
 */
final class PollingDrainBench {

  private static final Logger LOG = LoggerFactory.getLogger(PollingDrainBench.class);

  /** The worker counts drained by default. */
  static final List<Integer> WORKERS = List.of(1, 4, 8);

  /** One drain; CPU seconds of the relay, MariaDB and the broker from ready to the last ack. */
  private record Drain(
      int workers,
      double seconds,
      double cpuSeconds,
      double databaseCpu,
      double brokerCpu,
      long published) {}

  private final BenchEnv context;
  private final List<Integer> workerCounts;

  /**
   * @param workerCounts one drain per entry, in order (a count may repeat, to see the spread)
   */
  PollingDrainBench(BenchEnv context, List<Integer> workerCounts) {
    this.context = context;
    this.workerCounts = List.copyOf(workerCounts);
  }

  void run(ResultTable table, int events) throws Exception {
    List<Drain> drains = new ArrayList<>();
    for (int workers : workerCounts) {
      Quiet.await(
          context.mariaDb(), "the drain with " + workers + (workers == 1 ? " worker" : " workers"));
      Drain d = drain(workers, events);
      drains.add(d);
      table.add(
          String.format(
              "polling drain of a %,d-event backlog, %d worker%s",
              events, workers, workers == 1 ? "" : "s"),
          String.format("%,.0f events/s", events / d.seconds()),
          workers == 4 ? ">= 10,000 events/s with 4 workers" : "-",
          String.format(
                  "%.2f s from ready to the last ack; CPU s meanwhile: relay %.1f, MariaDB %.1f,"
                      + " broker %.1f",
                  d.seconds(), d.cpuSeconds(), d.databaseCpu(), d.brokerCpu())
              + (d.published() == events
                  ? ""
                  : String.format("; %,d records in Kafka (duplicates)", d.published())));
    }
    StringBuilder cpu = new StringBuilder();
    for (Drain d : drains) {
      cpu.append(cpu.isEmpty() ? "" : ", ")
          .append(String.format("%d w: %.1f", d.workers(), d.cpuSeconds() * 100_000 / events));
    }
    table.add(
        "polling relay CPU per 100k events (drain)",
        cpu + " CPU s",
        "-",
        "by worker count; relay process user+system CPU from ready to the last ack");
  }

  private Drain drain(int workers, int events) throws Exception {
    try (PollingSetup setup =
        new PollingSetup(
            context, "bench-poll" + workers, Map.of("polling.workers", String.valueOf(workers)))) {
      Backlog.write(setup.db(), 0, events);
      try (RelayProcess relay = setup.startRelay()) {
        long pid = relay.process().pid();
        double cpuAtReady = ProcessStats.cpuSeconds(pid);
        double databaseAtReady = ProcessStats.cpuSeconds(context.mariaDb().pid());
        double brokerAtReady = ProcessStats.cpuSeconds(context.kafka().pid());
        Map<String, Double> threadsAtReady = ProcessStats.cpuByThread(pid);
        long t0 = System.nanoTime();
        if (!setup.awaitPublished(events, Duration.ofMinutes(10))) {
          throw new IllegalStateException(
              String.format(
                  "polling relay with %d workers published %,d of %,d events in 10 minutes;"
                      + " see its log in %s",
                  workers, setup.published(), events, context.workDir()));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpu = ProcessStats.cpuSeconds(pid) - cpuAtReady;
        double databaseCpu = ProcessStats.cpuSeconds(context.mariaDb().pid()) - databaseAtReady;
        double brokerCpu = ProcessStats.cpuSeconds(context.kafka().pid()) - brokerAtReady;
        LOG.info(
            "polling relay ({} workers) CPU during the drain by thread:{}",
            workers,
            ProcessStats.cpuBreakdown(threadsAtReady, ProcessStats.cpuByThread(pid)));
        PollingSetup.stop(relay);
        return new Drain(workers, seconds, cpu, databaseCpu, brokerCpu, setup.published());
      }
    }
  }
}
