package io.outboxrelay.relay.source.cdc.leader;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.metrics.OutageLog;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes this relay the leader of its outbox table or a standby, on one thread of its own.
 *
 * <p>A standby looks at the leadership row every renewal interval, or just after it expires if that
 * comes sooner, and takes it when it expired or is free (the database decides, with its own clock).
 * The leader then starts publishing ({@link Publishing#start}) from the committed position and
 * renews every renewal interval. It stops publishing when a renewal finds the leadership taken by
 * another relay, and also, without asking anyone, when no renewal has succeeded for {@code
 * cdc.leader.lease} minus half a renewal interval ({@link Tenure}): it cannot reach the database,
 * or it was paused. The leadership cannot have expired before that, so two relays never publish at
 * the same time unless the leader's pause hit between its check and its send. Having stopped, it is
 * a standby again.
 *
 * <p>Thread-safe.
 */
public final class LeaderElection implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Shortest wait between two attempts when the database does not answer. */
  private static final Duration RETRY = Duration.ofMillis(500);

  /** The cause under which the election reports the source database in the shared outage log. */
  public static final String OUTAGE_CAUSE = "lease";

  /** What a leader does with its term. */
  public interface Publishing {
    /**
     * Starts publishing from the committed position, without waiting for it: the leadership is
     * renewed meanwhile.
     *
     * @param tenure the term: publishing must check {@link Tenure#mayPublish()} before each send
     * @throws RelayFailure when the relay cannot publish at all; it stops
     */
    void start(Tenure tenure);

    /** Stops publishing at once: the term ended. Nothing of the batch in flight is committed. */
    void stop();
  }

  private final LeadershipStore store;
  private final String holder;
  private final String relayName;
  private final Duration termLength;
  private final Duration renewInterval;
  private final Duration valid;
  private final String context;
  private final Publishing publishing;
  private final Consumer<RuntimeException> onFailure;
  private final CountDownLatch firstDecision = new CountDownLatch(1);
  private final AtomicReference<RuntimeException> firstFailure = new AtomicReference<>();
  private final Thread thread;
  private volatile String role = "starting";
  private volatile boolean closed;
  private volatile Tenure tenure; // non-null while leader
  private long lastRenewal; // System.nanoTime() at the start of the last successful renewal
  private volatile String abdication; // why the current term was given up, if it was
  private String lastSeen = ""; // holder and epoch last logged as standby
  private final OutageLog sourceOutages;

  /**
   * Creates the election; nothing happens until {@link #start()}.
   *
   * @param store the leases table, used by the election's thread only
   * @param relayName this relay's name
   * @param termLength how long leadership lasts after a renewal ({@code cdc.leader.lease})
   * @param renewInterval how often to renew, and the longest a standby waits between looks
   * @param context log prefix
   * @param sourceOutages the source database's outage log, shared with the binlog watch: leadership
   *     table that cannot be reached is reported there, under {@link #OUTAGE_CAUSE}
   * @param publishing what to do while leader
   * @param onFailure told once when the relay must stop ({@link Publishing#start} failed after the
   *     first term)
   */
  public LeaderElection(
      LeadershipStore store,
      String relayName,
      Duration termLength,
      Duration renewInterval,
      String context,
      OutageLog sourceOutages,
      Publishing publishing,
      Consumer<RuntimeException> onFailure) {
    this.store = store;
    this.holder = holderId(relayName);
    this.relayName = relayName;
    this.termLength = termLength;
    this.renewInterval = renewInterval;
    this.valid = termLength.minus(renewInterval.dividedBy(2));
    this.context = context;
    this.sourceOutages = sourceOutages;
    this.publishing = publishing;
    this.onFailure = onFailure;
    this.thread = new Thread(this::run, "cdc-leader-election");
    thread.setDaemon(true);
  }

  /**
   * A holder id unique to this process: the relay name, the host and the process id, and a random
   * suffix so that a restarted process never mistakes its predecessor's leadership for its own.
   */
  static String holderId(String relayName) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown-host";
    }
    long pid = ManagementFactory.getRuntimeMXBean().getPid();
    byte[] suffix = new byte[2];
    ThreadLocalRandom.current().nextBytes(suffix);
    return relayName + "@" + host + ":" + pid + "-" + HexFormat.of().formatHex(suffix);
  }

  /**
   * Starts the election and waits for its first decision: publishing (this relay became leader and
   * publishes) or standby.
   *
   * @throws InterruptedException when interrupted while waiting
   * @throws RelayFailure when publishing could not start in the first term
   */
  public void start() throws InterruptedException {
    LOG.info(
        "[{}] electing the publisher of {}: this relay is holder={} (cdc.leader.lease {} ms,"
            + " renewed every {} ms)",
        context,
        store.resource(),
        holder,
        termLength.toMillis(),
        renewInterval.toMillis());
    thread.start();
    firstDecision.await();
    RuntimeException failure = firstFailure.get();
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * The role, for the log and the stats line: {@code leader (epoch N)} or {@code standby (holder X,
   * epoch N)}.
   *
   * @return the role
   */
  public String role() {
    return role;
  }

  private void run() {
    while (!closed) {
      try {
        Tenure t = tenure;
        if (t == null) {
          standbyTurn();
        } else {
          leaderTurn(t);
        }
      } catch (SQLException e) {
        Tenure t = tenure;
        sourceOutages.down(
            OUTAGE_CAUSE,
            Instant.now(),
            "the lease table cannot be read ("
                + e.getMessage()
                + ")"
                + (t != null
                    ? "; publishing stops unless a renewal succeeds within "
                        + Math.max(0, t.nanosLeft() / 1_000_000)
                        + " ms"
                    : ""));
        firstDecision.countDown();
        try {
          sleep(RETRY);
        } catch (InterruptedException stop) {
          return;
        }
      } catch (InterruptedException e) {
        if (closed) {
          return;
        }
      } catch (RuntimeException e) {
        if (firstDecision.getCount() > 0) {
          firstFailure.set(e);
          firstDecision.countDown();
        } else if (!closed) {
          onFailure.accept(e);
        }
        return;
      }
    }
  }

  private void standbyTurn() throws SQLException, InterruptedException {
    long start = System.nanoTime();
    LeadershipRow l = store.tryAcquire(holder, relayName, termLength);
    reached(
        l.heldBy(holder)
            ? "this relay takes the lease (epoch " + l.epoch() + ")"
            : "standby (holder " + l.holder() + ", epoch " + l.epoch() + ")");
    if (l.heldBy(holder)) {
      Tenure t = new Tenure(l.epoch(), start, valid);
      tenure = t;
      lastRenewal = start;
      role = "leader (epoch " + l.epoch() + ")";
      LOG.info(
          "[{}] leader (epoch {}): holding the lease on {}; publishing from the committed position",
          context,
          l.epoch(),
          l.resource());
      publishing.start(t);
      firstDecision.countDown();
      return;
    }
    String seen = l.holder() + "#" + l.epoch();
    role = "standby (holder " + l.holder() + ", epoch " + l.epoch() + ")";
    if (!seen.equals(lastSeen)) {
      lastSeen = seen;
      LOG.info(
          "[{}] standby (holder {}, epoch {}): relay.name '{}' publishes {}; this relay takes over"
              + " when its lease expires (in {} ms unless renewed)",
          context,
          l.holder(),
          l.epoch(),
          l.relayName(),
          l.resource(),
          Math.max(0, l.remaining().toMillis()));
      if (!l.relayName().equals(relayName)) {
        // The start refuses this (exit 2); two relays of different names started at once on a
        // table without a leadership row can still meet here. This one never takes the leadership
        // over.
        throw new RelayFailure(
            l.resource()
                + " is served by relay.name '"
                + l.relayName()
                + "' and this relay is '"
                + relayName
                + "': a relay of another name would continue from its own position and skip the"
                + " events committed in between, so it never takes the lease over. Give it"
                + " relay.name="
                + l.relayName()
                + " (docs/cdc.md: Running more than one relay)",
            null);
      }
    }
    firstDecision.countDown();
    // Look again just after it expires, or after one interval if that comes sooner.
    Duration wait = l.remaining().plusMillis(20);
    if (wait.compareTo(renewInterval) > 0) {
      wait = renewInterval;
    }
    sleep(wait.isNegative() || wait.isZero() ? Duration.ofMillis(20) : wait);
  }

  private void leaderTurn(Tenure t) throws SQLException, InterruptedException {
    // A failed renewal ends up here again after a short pause, and is retried at once.
    while (!closed) {
      long untilRenewal = lastRenewal + renewInterval.toNanos() - System.nanoTime();
      long untilDeadline = t.nanosLeft();
      String why = abdication;
      if (why != null) {
        abdication = null;
        lose(t, why);
        return;
      }
      if (untilDeadline <= 0 || !t.mayPublish()) {
        lose(
            t,
            "no renewal succeeded for "
                + (valid.toMillis())
                + " ms (cut off from the database, or paused)");
        return;
      }
      if (untilRenewal > 0) {
        sleep(Duration.ofNanos(Math.min(untilRenewal, untilDeadline)));
        continue;
      }
      long start = System.nanoTime();
      boolean held = store.renew(holder, t.epoch(), termLength);
      reached(held ? "leader (epoch " + t.epoch() + "), publishing" : "the lease was taken over");
      if (!t.mayPublish()) {
        // The renewal took so long that the deadline passed meanwhile: publishing has stopped.
        lose(
            t,
            "the renewal returned after "
                + (System.nanoTime() - start) / 1_000_000
                + " ms, past the time the lease is sure to last (the process was paused, or the"
                + " database is slow)");
        return;
      }
      if (!held) {
        lose(t, "another relay took it");
        return;
      }
      t.renewed(start);
      lastRenewal = start;
    }
  }

  /** The leases table answered: whatever outage the election reported is over. */
  private void reached(String resumed) {
    sourceOutages.up(OUTAGE_CAUSE, resumed);
  }

  private void lose(Tenure t, String why) {
    t.end();
    tenure = null;
    role = "standby";
    lastSeen = "";
    LOG.warn(
        "[{}] lost the lease (epoch {}): {}; stopped publishing, this relay is a standby now",
        context,
        t.epoch(),
        why);
    publishing.stop();
  }

  private boolean sleep(Duration d) throws InterruptedException {
    Thread.sleep(Math.max(1, d.toMillis()));
    return !closed;
  }

  /**
   * Stops the election without giving the leadership up: the caller stops publishing, then calls
   * {@link #release()}. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Gives the leadership up, if this relay holds it, so that a standby takes over at once; call
   * after publishing stopped and the position was committed. Best effort.
   */
  public void release() {
    Tenure t = tenure;
    if (t == null || thread.isAlive()) {
      store.close();
      return;
    }
    t.end();
    tenure = null;
    try {
      store.release(holder, t.epoch());
      LOG.info("[{}] gave up the lease (epoch {}) for a standby to take over", context, t.epoch());
    } catch (SQLException e) {
      LOG.warn(
          "[{}] could not give up the lease ({}); a standby takes over when it expires",
          context,
          e.getMessage());
    } finally {
      store.close();
    }
  }

  /**
   * Ends the current term at once, as if the leadership were lost, without giving the leadership
   * up: the election then takes it again in a new epoch when no one else did, which restarts
   * publishing from the committed position. For a publishing failure that a fresh start can cure.
   *
   * @param why for the log
   */
  public void abdicate(String why) {
    Tenure t = tenure;
    if (t != null) {
      abdication = why;
      t.end(); // publishing stops now; the loop ends the term within a renewal interval
    }
  }

  /**
   * The holder id of this process, as stored in the leases table.
   *
   * @return the id
   */
  public String holder() {
    return holder;
  }
}
