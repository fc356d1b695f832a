package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The fault tests' application: {@code total} events in 1-3 event transactions over 40 aggregates
 * of type {@code order}, at a steady rate, each registered with the ledger once committed.
 */
final class PacedWriter {

  private PacedWriter() {}

  /**
   * Starts writing on the pool's thread.
   *
   * @param pool where the writer runs
   * @param db the database
   * @param ledger registers every committed event
   * @param total events to write
   * @param perSecond the rate
   * @param stop ends the writing early once set
   * @return the writer's future
   */
  static Future<?> start(
      ExecutorService pool,
      SourceDatabase db,
      Ledger ledger,
      int total,
      int perSecond,
      AtomicBoolean stop) {
    return pool.submit(
        () -> {
          Random random = new Random(1);
          long[] seq = new long[40];
          int written = 0;
          long start = System.nanoTime();
          try (Connection c = db.app()) {
            while (written < total && !stop.get()) {
              List<TestEvent> tx = new ArrayList<>();
              for (int k = 1 + random.nextInt(3); k > 0; k--) {
                int a = random.nextInt(40);
                tx.add(TestEvent.of("order", "agg-" + a, ++seq[a]));
              }
              RawOutboxInserts.writeTransaction(c, tx);
              ledger.expect(tx);
              written += tx.size();
              long due = start + (long) (written * 1e9 / perSecond);
              long wait = due - System.nanoTime();
              if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
              }
            }
          }
          return null;
        });
  }
}
