package io.outboxrelay.testsupport.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application that keeps writing outbox events at a steady rate through a database outage, as a
 * real one would: transactions of one to three events over a fixed set of aggregates, from a few
 * threads that each own a share of the aggregates (so each aggregate's events commit in sequence
 * order). When the database goes away a thread reconnects and carries on; it does not catch up on
 * the writes it missed.
 *
 * <p>A commit that fails when the server dies mid-commit may or may not have happened. Such events
 * are checked once the database is back and registered with the ledger only when their rows exist,
 * so the ledger expects exactly what was committed.
 *
 * <p>Thread-safe: the accessors may be called while it writes.
 */
public final class SteadyWriter extends WriterThreads {

  private final SourceDatabase db;
  private final Ledger ledger;
  private final int perSecond;
  private final int aggregates;
  private final int threads;
  private final String aggregateType;
  private final AtomicLong lastCommitMillis = new AtomicLong();

  private SteadyWriter(
      SourceDatabase db,
      Ledger ledger,
      String aggregateType,
      int perSecond,
      int aggregates,
      int threads) {
    this.db = db;
    this.ledger = ledger;
    this.aggregateType = aggregateType;
    this.perSecond = perSecond;
    this.aggregates = aggregates;
    this.threads = threads;
  }

  /**
   * Starts writing.
   *
   * @param db the database
   * @param ledger registers every committed event
   * @param aggregateType the events' aggregate type
   * @param perSecond events per second over all threads
   * @param aggregates how many aggregates the events are spread over
   * @param threads writer threads, each on its own connection
   * @return the running writer
   */
  public static SteadyWriter start(
      SourceDatabase db,
      Ledger ledger,
      String aggregateType,
      int perSecond,
      int aggregates,
      int threads) {
    SteadyWriter w = new SteadyWriter(db, ledger, aggregateType, perSecond, aggregates, threads);
    w.startThreads(threads, "steady-writer", w::run);
    return w;
  }

  private void run(int share) {
    Random random = new Random(share);
    List<Integer> owned = new ArrayList<>();
    for (int a = share; a < aggregates; a += threads) {
      owned.add(a);
    }
    long[] seq = new long[aggregates];
    double nanosPerEvent = 1e9 * threads / perSecond;
    List<TestEvent> uncertain = new ArrayList<>();
    Connection c = null;
    long written = 0;
    long start = System.nanoTime();
    try {
      while (!stopping) {
        if (c == null) {
          c = connect();
          if (c == null) {
            continue;
          }
          resolve(c, uncertain);
          // No catching up on what the outage held back: the schedule starts again now.
          start = System.nanoTime();
          written = 0;
        }
        List<TestEvent> tx = new ArrayList<>();
        for (int k = 1 + random.nextInt(3); k > 0; k--) {
          int a = owned.get(random.nextInt(owned.size()));
          tx.add(TestEvent.of(aggregateType, "agg-" + a, ++seq[a]));
        }
        try {
          RawOutboxInserts.insertWithoutCommit(c, tx);
        } catch (SQLException | AssertionError e) {
          // (PostgreSQL's driver, with assertions on, fails an assert instead of throwing when a
          // fast shutdown ends the connection in the middle of a batch.)
          failures.incrementAndGet();
          closeQuietly(c); // not committed: the rows are gone with the transaction
          c = null;
          continue;
        }
        try {
          c.commit();
        } catch (SQLException e) {
          failures.incrementAndGet();
          uncertain.addAll(tx); // the server may have died after making the commit durable
          closeQuietly(c);
          c = null;
          continue;
        }
        long now = System.currentTimeMillis();
        for (TestEvent e : tx) {
          commitMillis.put(e.eventId(), now);
        }
        lastCommitMillis.set(now);
        ledger.expect(tx);
        written += tx.size();
        long wait = start + (long) (written * nanosPerEvent) - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        } else if (wait < -1_000_000_000L) {
          start = System.nanoTime(); // fell behind (a slow or stalled database): do not burst
          written = 0;
        }
      }
      if (c != null) {
        closeQuietly(c);
        c = null;
      }
      while (!uncertain.isEmpty()) {
        c = connect();
        if (c != null) {
          resolve(c, uncertain);
          closeQuietly(c);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | SQLException e) {
      failure = e;
    }
  }

  /** A new connection, or null after a pause when the database does not answer. */
  private Connection connect() throws InterruptedException {
    try {
      return db.app();
    } catch (SQLException e) {
      failures.incrementAndGet();
      Thread.sleep(100);
      return null;
    }
  }

  /** Registers the uncertain events whose rows were committed after all. */
  private void resolve(Connection c, List<TestEvent> uncertain) throws SQLException {
    if (uncertain.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM outbox_events WHERE event_id = ?")) {
      for (TestEvent e : uncertain) {
        ps.setString(1, e.eventId());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            ledger.expect(e);
          }
        }
      }
    }
    c.rollback();
    uncertain.clear();
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // the server is gone; nothing to release
    }
  }

  /** Wall-clock time (ms) of the last acknowledged commit, 0 before the first. */
  public long lastCommitMillis() {
    return lastCommitMillis.get();
  }
}
