package io.outboxrelay.testsupport.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application that keeps transactions open for seconds while it writes outbox events into them:
 * several lanes, each a thread with its own connection, each inserting events one at a time at its
 * share of the rate into a transaction it commits after a random time between a minimum and a
 * maximum, then opening the next. The lanes start staggered, so there is always more than one
 * transaction open, and a new one opens while the others are still open: the shape that makes a
 * locking read chase the table's tail. Each lane owns its aggregates, so each aggregate's events
 * commit in sequence order. A transaction that fails (a lock wait that ran out) is rolled back and
 * its events are not expected; only committed events reach the ledger.
 *
 * <p>Thread-safe: the accessors may be called while it writes.
 */
public final class LongTransactionWriter extends WriterThreads {

  private final SourceDatabase db;
  private final Ledger ledger;
  private final String aggregateType;
  private final int lanes;
  private final int perSecond;
  private final Duration minHold;
  private final Duration maxHold;
  private final AtomicLong transactions = new AtomicLong();

  private LongTransactionWriter(
      SourceDatabase db,
      Ledger ledger,
      String aggregateType,
      int lanes,
      int perSecond,
      Duration minHold,
      Duration maxHold) {
    this.db = db;
    this.ledger = ledger;
    this.aggregateType = aggregateType;
    this.lanes = lanes;
    this.perSecond = perSecond;
    this.minHold = minHold;
    this.maxHold = maxHold;
  }

  /**
   * Starts writing.
   *
   * @param db the database
   * @param ledger registers every committed event
   * @param aggregateType the events' aggregate type
   * @param lanes concurrent transactions (threads)
   * @param perSecond events per second over all lanes
   * @param minHold shortest time a transaction stays open
   * @param maxHold longest time a transaction stays open
   * @return the running writer
   */
  public static LongTransactionWriter start(
      SourceDatabase db,
      Ledger ledger,
      String aggregateType,
      int lanes,
      int perSecond,
      Duration minHold,
      Duration maxHold) {
    LongTransactionWriter w =
        new LongTransactionWriter(db, ledger, aggregateType, lanes, perSecond, minHold, maxHold);
    w.startThreads(lanes, "long-tx-writer", w::run);
    return w;
  }

  private void run(int lane) {
    Random random = new Random(lane * 7919L);
    long[] seq = new long[20];
    long nanosPerEvent = 1_000_000_000L * lanes / perSecond;
    try {
      // Staggered: lane k opens its first transaction k/lanes of the shortest hold later.
      TimeUnit.MILLISECONDS.sleep(minHold.toMillis() * lane / lanes);
      Connection c = db.app();
      try {
        while (!stopping) {
          long hold =
              minHold.toNanos()
                  + (long) (random.nextDouble() * (maxHold.toNanos() - minHold.toNanos()));
          long opened = System.nanoTime();
          List<TestEvent> tx = new ArrayList<>();
          try {
            while (!stopping && System.nanoTime() - opened < hold) {
              int a = random.nextInt(seq.length);
              TestEvent e = TestEvent.of(aggregateType, "lane" + lane + "-agg-" + a, ++seq[a]);
              RawOutboxInserts.insertWithoutCommit(c, List.of(e));
              tx.add(e);
              long wait = opened + tx.size() * nanosPerEvent - System.nanoTime();
              if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
              }
            }
            c.commit();
          } catch (SQLException e) {
            failures.incrementAndGet();
            c.rollback();
            continue;
          }
          long now = System.currentTimeMillis();
          tx.forEach(e -> commitMillis.put(e.eventId(), now));
          ledger.expect(tx);
          transactions.incrementAndGet();
        }
      } finally {
        c.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException | RuntimeException e) {
      failure = e;
    }
  }

  /** Transactions committed so far. */
  public long transactions() {
    return transactions.get();
  }
}
