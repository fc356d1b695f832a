package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * An application writing outbox events at a fixed rate, one event per transaction, from several
 * threads on their own connections, each on a fixed schedule (a late write does not shift the
 * following ones). Records each event's commit time for {@link LatencyReader}.
 */
final class SteadyLoad {

  /**
   * Events per second one writer thread is asked for. A durable commit (binlog and redo log
   * flushed) takes a few milliseconds on a busy small machine: four threads reached only about
   * 1,000 events/s at a requested 2,000 on two cores, eight about 1,700; twenty leave each commit
   * 10 ms.
   */
  private static final int PER_THREAD = 100;

  private SteadyLoad() {}

  /**
   * Writes {@code rate} events/s for {@code duration} and returns when the last one committed.
   *
   * @return the wall-clock time (ms) at which each event's transaction committed, by event id
   */
  static Map<String, Long> run(SourceDatabase db, int rate, Duration duration) throws Exception {
    int threads = Math.max(4, (rate + PER_THREAD - 1) / PER_THREAD);
    Map<String, Long> commitMillis = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      long perThread = rate * duration.toSeconds() / threads;
      double intervalNanos = 1e9 * threads / rate;
      for (int t = 0; t < threads; t++) {
        long start = System.nanoTime() + (long) (intervalNanos * t / threads);
        futures.add(
            pool.submit(
                () -> {
                  write(db, start, intervalNanos, perThread, commitMillis);
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return commitMillis;
  }

  private static void write(
      SourceDatabase db, long start, double intervalNanos, long count, Map<String, Long> into)
      throws Exception {
    try (Connection c = db.app()) {
      for (long i = 0; i < count; i++) {
        long wait = start + (long) (i * intervalNanos) - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        TestEvent e = BenchEvents.next(i);
        RawOutboxInserts.writeTransaction(c, List.of(e));
        into.put(e.eventId(), System.currentTimeMillis());
      }
    }
  }
}
