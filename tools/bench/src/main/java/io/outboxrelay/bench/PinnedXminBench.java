package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.stack.PostgresService;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Polling mode on PostgreSQL while something holds the xmin horizon. Two runs, each on a fresh
 * outbox database of the machine's PostgreSQL service (created from config/postgresql), fresh
 * topics and a fresh relay with 4 workers and the product's defaults otherwise: {@code unpinned},
 * then {@code pinned}, in which an application session holds a REPEATABLE READ transaction open
 * ({@link XminPin}) from before the load starts until it ends. Each run warms the relay up for 5 s,
 * then writes {@code --rate} events/s for the load's length, one per transaction ({@link
 * SteadyLoad}), while a {@code read_committed} consumer ({@link VisibleReader}) notes when each
 * event becomes visible and the table's statistics are sampled every {@code --sample-seconds}
 * ({@link OutboxTableSample}). When the server's autovacuum is off, {@link AutovacuumStandIn} does
 * its work (unless told not to). Databases are dropped and relays stopped after each run.
 */
final class PinnedXminBench {

  /** The group's rate when {@code --rate} is not given: the steady 1,000 events/s. */
  static final int DEFAULT_RATE = 1_000;

  /** The default load of each run. */
  static final Duration DEFAULT_LOAD = Duration.ofMinutes(10);

  private static final Duration WARM_UP = Duration.ofSeconds(5);

  /** A window shorter than this at the load's end is folded into the previous one. */
  private static final long MIN_LAST_WINDOW_MILLIS = 1_000;

  private final BenchEnv env;

  PinnedXminBench(BenchEnv env) {
    this.env = env;
  }

  /**
   * Runs each of {@code runs} in order ({@code unpinned}, {@code pinned}) and adds them to the
   * table.
   *
   * @param load the load of each run, whole seconds
   * @param sample the length of a window
   * @param standIn whether to stand in for autovacuum when the server's is off
   * @param pinWrites whether the pin also wrote a row of another table (a batch job) rather than
   *     only read
   * @param runs false for the unpinned run, true for the pinned one, in the order they run
   */
  void run(
      PinnedXminTable table,
      int rate,
      Duration load,
      Duration sample,
      boolean standIn,
      boolean pinWrites,
      List<Boolean> runs)
      throws Exception {
    table.conditions(
        String.format(
            Locale.ROOT,
            "%,d events/s (one per transaction) for %d s per run after a %d s warm-up, %d s"
                + " windows; relay in polling mode, polling.workers=4, other settings default"
                + " (polling.retention 0ms: no row is deleted); the pin: %s%s",
            rate,
            load.toSeconds(),
            WARM_UP.toSeconds(),
            sample.toSeconds(),
            pinWrites
                ? "a REPEATABLE READ transaction that also wrote a row of another table"
                : "a read-only REPEATABLE READ transaction",
            env.relaySettings().isEmpty()
                ? ""
                : "; changed by --relay-set: " + new java.util.TreeMap<>(env.relaySettings())));
    for (boolean pinned : runs) {
      String label = pinned ? "pinned" : "unpinned";
      System.err.printf(
          Locale.ROOT,
          "pinned-xmin: %s run, %,d events/s for %d s...%n",
          label,
          rate,
          load.toSeconds());
      table.add(runOnce(label, pinned, pinWrites, rate, load, sample, standIn));
    }
  }

  private PinnedXminRun runOnce(
      String label,
      boolean pinned,
      boolean pinWrites,
      int rate,
      Duration load,
      Duration sample,
      boolean standIn)
      throws Exception {
    PostgresService pg = PostgresService.local();
    Map<String, String> settings =
        Map.of("polling.workers", "4", "relay.stats.interval", sample.toSeconds() + "s");
    try (PollingSetup setup =
            new PollingSetup(env, "bench-xmin-" + label, OutboxDatabase.postgres(), settings);
        Connection stats = pg.connect(setup.db().name());
        AutovacuumStandIn vacuum =
            standIn ? AutovacuumStandIn.startIfNeeded(pg, setup.db().name()) : null;
        RelayProcess relay = setup.startRelay()) {
      List<String> notes = new ArrayList<>();
      notes.add(vacuumNote(stats, vacuum, standIn));
      PinnedXminRun run;
      // The consumer starts before the warm-up, so that its own start is not in the timed load.
      try (VisibleReader reader = new VisibleReader(setup.bootstrapServers(), setup.topics())) {
        Map<String, Long> warmUp = SteadyLoad.run(setup.db(), rate, WARM_UP);
        if (!reader.awaitRecords(warmUp.size(), Duration.ofSeconds(60))) {
          throw new IllegalStateException("polling relay did not publish the warm-up events");
        }
        // A table in service has statistics; a fresh one has none until autovacuum's first visit,
        // and the planner's guesses meanwhile would weigh on whichever run it happened in.
        try (Statement st = stats.createStatement()) {
          st.execute("ANALYZE outbox_events");
        }
        Load timed = load(setup, stats, pinned, pinWrites, rate, load, sample, notes);
        drain(reader, warmUp.size() + timed.commits().size(), load, notes);
        notes.add(appendNote(reader, timed.commits()));
        if (vacuum != null) {
          notes.add(
              String.format(
                  Locale.ROOT,
                  "the stand-in ran %d VACUUM and %d ANALYZE in the run%s",
                  vacuum.vacuums(),
                  vacuum.analyzes(),
                  vacuum.failure() == null ? "" : "; it stopped early: " + vacuum.failure()));
        }
        // The relay's throughput line for the last window is logged up to a window after it.
        long lastLine = timed.end() + sample.toMillis() + 1_000 - System.currentTimeMillis();
        if (lastLine > 0) {
          Thread.sleep(lastLine);
        }
        run =
            PinnedXminRun.of(
                label,
                timed.samples(),
                timed.end(),
                timed.commits(),
                id -> {
                  VisibleReader.Seen seen = reader.seen(id);
                  return seen == null ? -1 : seen.visibleMillis();
                },
                RelayStatsLine.parse(relay.log(), ZoneId.systemDefault()),
                notes);
      }
      PollingSetup.stop(relay);
      return run;
    }
  }

  /** The timed load: its table samples, each event's commit time, and when the last committed. */
  private record Load(List<OutboxTableSample> samples, Map<String, Long> commits, long end) {}

  /**
   * Writes the load while the table is sampled; in the pinned run, the pin is opened before and
   * released after it.
   */
  private static Load load(
      PollingSetup setup,
      Connection stats,
      boolean pinned,
      boolean pinWrites,
      int rate,
      Duration load,
      Duration sample,
      List<String> notes)
      throws Exception {
    List<OutboxTableSample> samples = new ArrayList<>();
    XminPin pin = pinned ? XminPin.open(setup.db(), pinWrites) : null;
    try {
      samples.add(OutboxTableSample.read(stats));
      CountDownLatch loadDone = new CountDownLatch(1);
      ExecutorService sampler = Executors.newSingleThreadExecutor();
      try {
        Future<?> sampling = sampler.submit(() -> sample(stats, samples, sample, loadDone));
        Map<String, Long> commits;
        try {
          commits = SteadyLoad.run(setup.db(), rate, load);
        } finally {
          loadDone.countDown();
        }
        long end = System.currentTimeMillis();
        sampling.get();
        return new Load(samples, commits, end);
      } finally {
        sampler.shutdownNow();
      }
    } finally {
      if (pin != null) {
        notes.add(pinNote(pin));
      }
    }
  }

  /**
   * Waits for the consumer to see every event (by id: a run whose leases expired publishes some
   * twice); notes duplicates, and events it did not see.
   */
  private static void drain(VisibleReader reader, long expected, Duration load, List<String> notes)
      throws InterruptedException {
    // A pinned run may leave most of its load behind: up to the load's length to drain it.
    Duration drain = Duration.ofSeconds(Math.max(120, load.toSeconds()));
    long deadline = System.nanoTime() + drain.toNanos();
    while (reader.distinct() < expected && System.nanoTime() - deadline < 0) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    if (reader.distinct() < expected) {
      notes.add(
          String.format(
              Locale.ROOT,
              "the consumer had seen %,d of %,d events %d s after the load ended",
              reader.distinct(),
              expected,
              drain.toSeconds()));
    }
    notes.add(
        String.format(
            Locale.ROOT,
            "duplicates %,d (warm-up included)",
            reader.records() - reader.distinct() - reader.withoutId()));
  }

  /** Commit → the broker's append, which leaves out the consumer's share of the latency. */
  private static String appendNote(VisibleReader reader, Map<String, Long> commits) {
    double[] millis =
        commits.entrySet().stream()
            .filter(e -> reader.seen(e.getKey()) != null)
            .mapToDouble(e -> reader.seen(e.getKey()).appendMillis() - e.getValue())
            .toArray();
    Percentiles p = Percentiles.of(millis);
    return String.format(
        Locale.ROOT,
        "commit → broker append (the record's LogAppendTime): p50 %.0f ms, p99 %.0f ms, max %.0f"
            + " ms",
        p.p50(),
        p.p99(),
        p.max());
  }

  /**
   * Samples the table every {@code every} from the first sample until the load is done, then once
   * more as it ends (unless the last sample was less than a second before).
   */
  private static Void sample(
      Connection stats, List<OutboxTableSample> samples, Duration every, CountDownLatch loadDone)
      throws SQLException, InterruptedException {
    long start = samples.get(0).atMillis();
    for (int n = 1; ; n++) {
      long wait = start + n * every.toMillis() - System.currentTimeMillis();
      boolean done = loadDone.await(Math.max(0, wait), TimeUnit.MILLISECONDS);
      if (done) {
        long since = System.currentTimeMillis() - samples.get(samples.size() - 1).atMillis();
        if (since < MIN_LAST_WINDOW_MILLIS && samples.size() > 1) {
          samples.remove(samples.size() - 1);
        }
        samples.add(OutboxTableSample.read(stats));
        return null;
      }
      samples.add(OutboxTableSample.read(stats));
    }
  }

  private static String pinNote(XminPin pin) {
    boolean held = pin.release();
    return String.format(
        Locale.ROOT,
        "REPEATABLE READ transaction of backend %d (its snapshot counted %,d rows) %s, then"
            + " rolled back",
        pin.pid(),
        pin.rowsSeen(),
        held
            ? "held open, idle in transaction, from before the load until its end"
            : "NOT held to the end: its session ended or its snapshot changed");
  }

  private static String vacuumNote(Connection stats, AutovacuumStandIn vacuum, boolean standIn)
      throws SQLException {
    if (vacuum != null) {
      return "the server's autovacuum is off: the bench stood in for it on the outbox table ("
          + vacuum.describe()
          + ")";
    }
    String autovacuum;
    try (Statement st = stats.createStatement();
        ResultSet rs = st.executeQuery("SHOW autovacuum")) {
      rs.next();
      autovacuum = rs.getString(1);
    }
    if ("on".equals(autovacuum)) {
      return "the server's autovacuum (on) vacuumed the table";
    }
    return standIn
        ? "autovacuum " + autovacuum
        : "nothing vacuumed the table: the server's autovacuum is off and --vacuum-stand-in false";
  }
}
