package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RelayProcess;
import java.time.Duration;
import java.util.Map;

/**
 * Polling mode: latency from the application's commit to Kafka's append (the broker's timestamp of
 * the record) under a steady load, with 4 workers and the default {@code polling.interval}.
 */
final class PollingLatencyBench {

  private static final Duration WARM_UP = Duration.ofSeconds(5);

  private final BenchEnv context;

  PollingLatencyBench(BenchEnv context) {
    this.context = context;
  }

  void run(ResultTable table, int rate, Duration duration) throws Exception {
    try (PollingSetup setup =
            new PollingSetup(context, "bench-poll-lat", Map.of("polling.workers", "4"));
        RelayProcess relay = setup.startRelay()) {
      // A relay that has just started answers its first events late (JIT, the producer's first
      // metadata and connections): about 1.5 s for the first two seconds. Warm it up first.
      Map<String, Long> warmUp = SteadyLoad.run(setup.db(), rate, WARM_UP);
      if (!setup.awaitPublished(warmUp.size(), Duration.ofSeconds(60))) {
        throw new IllegalStateException("polling relay did not publish the warm-up events");
      }
      long pid = relay.process().pid();
      double cpu0 = ProcessStats.cpuSeconds(pid);
      long t0 = System.nanoTime();
      Map<String, Long> commitMillis = SteadyLoad.run(setup.db(), rate, duration);
      double loadSeconds = (System.nanoTime() - t0) / 1e9;
      if (!setup.awaitPublished(warmUp.size() + commitMillis.size(), Duration.ofSeconds(60))) {
        throw new IllegalStateException(
            String.format(
                "polling relay published %,d of %,d events within 60 s after the load",
                setup.published(), warmUp.size() + commitMillis.size()));
      }
      double cpu = ProcessStats.cpuSeconds(pid) - cpu0;
      double allSeconds = (System.nanoTime() - t0) / 1e9;
      LatencyReader.Samples samples =
          LatencyReader.readSamples(setup.bootstrapServers(), setup.topics(), commitMillis);
      Percentiles latency = samples.percentiles();
      java.util.List<Percentiles> windows = samples.windows(CdcBench.WINDOW);
      PollingSetup.stop(relay);
      table.add(
          String.format("polling latency commit -> Kafka ack at %,d events/s, 4 workers", rate),
          String.format(
              "p50 %.0f ms, p99 %.0f ms, max %.0f ms", latency.p50(), latency.p99(), latency.max()),
          "p99 <= 100 ms",
          String.format(
              "%,d events over %.1f s (%,.0f /s written) after a %d s warm-up; polling.interval"
                  + " 100 ms; relay CPU %.0f%% of one core; p99 per %d s window: %s ms",
              latency.count(),
              loadSeconds,
              commitMillis.size() / loadSeconds,
              WARM_UP.toSeconds(),
              cpu * 100 / allSeconds,
              CdcBench.WINDOW.toSeconds(),
              LatencyReader.p99s(windows)));
    }
  }
}
