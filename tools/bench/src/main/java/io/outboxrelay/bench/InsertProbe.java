package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What an application sees of a hand-off: an autocommit outbox INSERT every {@link #PACE_MILLIS}
 * ms, timed, from {@link #start} to {@link #stop}, each registered with the ledger; and one
 * application transaction that inserted an outbox row just before and keeps it open for {@code
 * holdMillis}. Reports the longest and the 99th-percentile INSERT. Thread-safe.
 */
final class InsertProbe implements AutoCloseable {

  /** The pace of the autocommit INSERTs. */
  static final long PACE_MILLIS = 200;

  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Long> micros = new ArrayList<>();
  private final Thread inserts;
  private final Thread held;
  private volatile Exception failure;

  private InsertProbe(OutboxDatabase db, Ledger ledger, String aggregate, long holdMillis)
      throws Exception {
    Connection tx = db.app();
    TestEvent heldEvent = TestEvent.of("probe", aggregate + "-held", 1);
    RawOutboxInserts.insertWithoutCommit(tx, List.of(heldEvent));
    held =
        new Thread(
            () -> {
              try (tx) {
                Thread.sleep(holdMillis); // the application's pace
                tx.commit();
                ledger.expect(heldEvent);
              } catch (Exception e) {
                failure = e;
              }
            },
            "probe-held");
    inserts =
        new Thread(
            () -> {
              try (Connection c = db.app()) {
                c.setAutoCommit(true);
                for (int i = 1; running.get(); i++) {
                  TestEvent e = TestEvent.of("probe", aggregate, i);
                  long t0 = System.nanoTime();
                  RawOutboxInserts.insertWithoutCommit(c, List.of(e));
                  long took = (System.nanoTime() - t0) / 1000;
                  synchronized (micros) {
                    micros.add(took);
                  }
                  ledger.expect(e);
                  Thread.sleep(PACE_MILLIS);
                }
              } catch (Exception e) {
                failure = e;
              }
            },
            "probe-inserts");
    held.start();
    inserts.start();
  }

  /**
   * Starts the held transaction and the INSERTs.
   *
   * @param db the database
   * @param ledger registers every committed event
   * @param aggregate the probe's aggregate id, one per probe
   * @param holdMillis how long the held transaction stays open
   * @return the running probe
   * @throws Exception when the held transaction cannot insert
   */
  static InsertProbe start(OutboxDatabase db, Ledger ledger, String aggregate, long holdMillis)
      throws Exception {
    return new InsertProbe(db, ledger, aggregate, holdMillis);
  }

  /**
   * Waits for the held transaction to end, then stops the INSERTs.
   *
   * @return {@code max X ms, p99 Y ms over N INSERTs}
   */
  String stop() throws Exception {
    held.join();
    running.set(false);
    inserts.join();
    if (failure != null) {
      throw failure;
    }
    List<Long> sorted;
    synchronized (micros) {
      sorted = new ArrayList<>(micros);
    }
    sorted.sort(null);
    if (sorted.isEmpty()) {
      return "no INSERT";
    }
    long max = sorted.get(sorted.size() - 1);
    long p99 = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
    return String.format(
        "max %.1f ms, p99 %.1f ms over %d INSERTs", max / 1000.0, p99 / 1000.0, sorted.size());
  }

  @Override
  public void close() {
    running.set(false);
    held.interrupt();
  }
}
