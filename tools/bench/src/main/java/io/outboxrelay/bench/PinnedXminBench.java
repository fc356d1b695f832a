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
   * Runs {@code unpinned}, then {@code pinned}, and adds both to the table.
   *
   * @param load the load of each run, whole seconds
   * @param sample the length of a window
   * @param standIn whether to stand in for autovacuum when the server's is off
   */
  void run(PinnedXminTable table, int rate, Duration load, Duration sample, boolean standIn)
      throws Exception {
    table.conditions(
        String.format(
            Locale.ROOT,
            "%,d events/s (one per transaction) for %d s per run after a %d s warm-up, %d s"
                + " windows; relay in polling mode, polling.workers=4, other settings default"
                + " (polling.retention 0ms: no row is deleted)",
            rate,
            load.toSeconds(),
            WARM_UP.toSeconds(),
            sample.toSeconds()));
    for (boolean pinned : new boolean[] {false, true}) {
      String label = pinned ? "pinned" : "unpinned";
      System.err.printf(
          Locale.ROOT,
          "pinned-xmin: %s run, %,d events/s for %d s...%n",
          label,
          rate,
          load.toSeconds());
      table.add(runOnce(label, pinned, rate, load, sample, standIn));
    }
  }

  private PinnedXminRun runOnce(
      String label, boolean pinned, int rate, Duration load, Duration sample, boolean standIn)
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
      Map<String, Long> warmUp = SteadyLoad.run(setup.db(), rate, WARM_UP);
      if (!setup.awaitPublished(warmUp.size(), Duration.ofSeconds(60))) {
        throw new IllegalStateException("polling relay did not publish the warm-up events");
      }
      PinnedXminRun run;
      try (VisibleReader reader = new VisibleReader(setup.bootstrapServers(), setup.topics())) {
        List<OutboxTableSample> samples = new ArrayList<>();
        Map<String, Long> commits;
        long loadEnd;
        XminPin pin = pinned ? XminPin.open(setup.db()) : null;
        try {
          samples.add(OutboxTableSample.read(stats));
          CountDownLatch loadDone = new CountDownLatch(1);
          ExecutorService sampler = Executors.newSingleThreadExecutor();
          try {
            Future<?> sampling = sampler.submit(() -> sample(stats, samples, sample, loadDone));
            try {
              commits = SteadyLoad.run(setup.db(), rate, load);
            } finally {
              loadDone.countDown();
            }
            loadEnd = System.currentTimeMillis();
            sampling.get();
          } finally {
            sampler.shutdownNow();
          }
        } finally {
          if (pin != null) {
            notes.add(pinNote(pin));
          }
        }
        long expected = warmUp.size() + commits.size();
        Duration drain = Duration.ofSeconds(Math.max(120, load.toSeconds() / 2));
        if (!reader.awaitRecords(expected, drain)) {
          notes.add(
              String.format(
                  Locale.ROOT,
                  "the consumer had %,d of %,d records %d s after the load ended",
                  reader.records(),
                  expected,
                  drain.toSeconds()));
        }
        notes.add(
            String.format(
                Locale.ROOT,
                "duplicates %,d (warm-up included)",
                reader.records() - reader.distinct() - reader.withoutId()));
        if (vacuum != null) {
          notes.add(
              String.format(
                  Locale.ROOT,
                  "the stand-in ran %d VACUUM and %d ANALYZE in the run%s",
                  vacuum.vacuums(),
                  vacuum.analyzes(),
                  vacuum.failure() == null ? "" : "; it stopped early: " + vacuum.failure()));
        }
        run =
            PinnedXminRun.of(
                label,
                samples,
                loadEnd,
                commits,
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
