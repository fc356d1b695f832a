package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.PollingConfig;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.source.EventRouting;
import io.outboxrelay.relay.source.polling.FinishPlanner.FinishPlan;
import io.outboxrelay.relay.versions.VersionWatch;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.RoutedRecord;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One polling worker: claim a batch (short transaction), publish it after the claim committed, then
 * finish it (one fenced transaction that writes what the {@link FinishPlanner} decided from Kafka's
 * answers). Claims again at once when a claim found anything; otherwise pauses (with jitter) for
 * {@link #idlePause}, which grows to {@code polling.interval} while the table stays idle. Claims
 * nothing while the {@link KafkaBreaker} is open: when a batch shows that Kafka is down, its events
 * go back to PENDING without counting an attempt and the breaker opens. While a batch is in flight
 * the {@link LeaseKeeper} renews its lease. While the database cannot be reached the worker
 * reconnects after a pause that grows to {@link #RECONNECT_MAX}, and the shared {@link OutageLog}
 * tells the operator once.
 *
 * <p>Runs on its own thread and owns its connection; {@link #stop()} may be called from any thread
 * and lets the batch in flight finish.
 */
final class PollingWorker implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(PollingWorker.class);

  /**
   * The longest pause between two attempts to reach a database that is down: small, so that the
   * worker claims again within about a second of the database accepting connections.
   */
  static final Duration RECONNECT_MAX = Duration.ofSeconds(1);

  private final String name;
  private final String context;
  private final PollingConfig config;
  private final StoreFactory stores;
  private final KafkaPublisher publisher;
  private final KafkaBreaker breaker;
  private final EventRouting routing;
  private final RelayMetrics metrics;
  private final FinishPlanner planner;
  private final Backoff reconnectBackoff;
  private final LeaseKeeper leases;
  private final OutageLog databaseOutages;
  private final Consumer<RelayFailure> onFatal;

  /** Time kept back from the lease for the finishing transaction. */
  private final Duration finishMargin;

  private volatile boolean running = true;
  private OutboxStore store;
  private long nextExpiredCheck = System.nanoTime();
  private long lastSlowClaimWarn = System.nanoTime() - SLOW_CLAIM_WARN_EVERY_NANOS;

  /** Claims in a row that found nothing; the idle pause grows with them. */
  private int emptyClaims;

  /** How often a worker also looks for expired leases (reading every leased row). */
  private static final long EXPIRED_CHECK_NANOS = Duration.ofSeconds(1).toNanos();

  /** A claim slower than this is worth a WARN: claims take milliseconds when all is well. */
  private static final long SLOW_CLAIM_NANOS = Duration.ofSeconds(1).toNanos();

  /** How often a worker warns of slow claims, at most. */
  static final Duration SLOW_CLAIM_WARN_EVERY = Duration.ofMinutes(1);

  private static final long SLOW_CLAIM_WARN_EVERY_NANOS = SLOW_CLAIM_WARN_EVERY.toNanos();

  /**
   * @param versions the version check, shared by the process's workers (an aggregate's events may
   *     be claimed by any of them)
   */
  PollingWorker(
      String name,
      String context,
      PollingConfig config,
      StoreFactory stores,
      KafkaPublisher publisher,
      KafkaBreaker breaker,
      EventRouter router,
      VersionWatch versions,
      RelayMetrics metrics,
      LeaseKeeper leases,
      OutageLog databaseOutages,
      Consumer<RelayFailure> onFatal) {
    this.name = name;
    this.context = context;
    this.config = config;
    this.stores = stores;
    this.publisher = publisher;
    this.breaker = breaker;
    // Kafka's answer tells a record too large: polling then marks the event DEAD.
    this.routing = new EventRouting(router, versions, null);
    this.metrics = metrics;
    this.leases = leases;
    this.databaseOutages = databaseOutages;
    this.onFatal = onFatal;
    this.finishMargin = finishMargin(config.lease());
    this.planner = new FinishPlanner(name, context, config, breaker, metrics, finishMargin);
    this.reconnectBackoff =
        new Backoff(
            Duration.ofMillis(200), RECONNECT_MAX, 2, Backoff.JITTER, ThreadLocalRandom.current());
  }

  /**
   * The part of the lease kept back for the finish: a renewal period (a quarter of the lease), at
   * most {@link PollingConfig#FINISH_MARGIN_MAX}. A batch whose lease has not been renewed for
   * three quarters of it (the database does not answer) stops waiting for Kafka, so that its finish
   * can still run within the lease.
   */
  static Duration finishMargin(Duration lease) {
    Duration quarter = LeaseKeeper.period(lease);
    Duration max = PollingConfig.FINISH_MARGIN_MAX;
    return quarter.compareTo(max) < 0 ? quarter : max;
  }

  /** Asks the worker to stop after the batch in flight. */
  void stop() {
    running = false;
  }

  @Override
  public void run() {
    DatabaseOutage outage = new DatabaseOutage();
    try {
      while (running) {
        metrics.health().beat();
        Duration pause;
        try {
          if (breaker.isOpen()) {
            breaker.awaitClosed(() -> running); // Kafka is down: claim nothing
            continue;
          }
          if (store == null) {
            store = stores.open();
          }
          boolean found = runOnce();
          outage.over();
          emptyClaims = found ? 0 : emptyClaims + 1;
          pause = found ? Duration.ZERO : idlePause(config.interval(), emptyClaims);
        } catch (SQLException e) {
          if (ErrorClassifier.isTransactionRollback(e)) {
            // A deadlock or serialization failure: the transaction was rolled back and the
            // connection is fine; claims and finishes are safe to run again.
            LOG.debug(
                "[{}] {}: transaction rolled back ({}); retrying",
                context,
                name,
                ErrorClassifier.describe(e));
            pause = rollbackPause();
          } else {
            closeStore();
            if (ErrorClassifier.classify(e) == Disposition.STOP) {
              onFatal.accept(
                  new RelayFailure(
                      "the database refused the relay ("
                          + ErrorClassifier.describe(e)
                          + "): check"
                          + " the grants of source.user (see config/*/relay-grants.sql)",
                      e));
              return;
            }
            pause = outage.nextPause();
            outage.tell(e);
            LOG.debug(
                "[{}] {}: database call failed ({}), attempt {}; retrying in {} ms",
                context,
                name,
                ErrorClassifier.describe(e),
                outage.failures(),
                pause.toMillis());
          }
        } catch (RelayFailure e) {
          onFatal.accept(e);
          return;
        } catch (RuntimeException e) {
          pause = outage.nextPause();
          LOG.error(
              "[{}] {}: unexpected failure; continuing in {} ms",
              context,
              name,
              pause.toMillis(),
              e);
        }
        if (!pause.isZero()) {
          idle(pause);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeStore();
    }
  }

  /** Times a claim; warns, at most once per {@link #SLOW_CLAIM_WARN_EVERY}, of a slow one. */
  private void claimTook(long nanos) {
    metrics.claimed(nanos);
    long now = System.nanoTime();
    if (nanos >= SLOW_CLAIM_NANOS && now - lastSlowClaimWarn >= SLOW_CLAIM_WARN_EVERY_NANOS) {
      lastSlowClaimWarn = now;
      LOG.warn(
          "[{}] {}: a claim took {} ms: the database is slow to find due rows; on PostgreSQL,"
              + " look for a session holding the xmin horizon back (a long transaction, pg_dump, a"
              + " replication slot: docs/polling.md, \"A held-back xmin horizon\"), else for a"
              + " backlog, missing indexes or a saturated server",
          context,
          name,
          nanos / 1_000_000);
    }
  }

  /** One claim-publish-finish cycle; true when it claimed anything. */
  boolean runOnce() throws SQLException, InterruptedException {
    long claimedAt = System.nanoTime();
    boolean takeExpired = claimedAt - nextExpiredCheck >= 0;
    if (takeExpired) {
      nextExpiredCheck = claimedAt + EXPIRED_CHECK_NANOS;
    }
    Claim claim =
        store.claim(
            config.claimWindow(),
            config.batchSize(),
            config.lease(),
            config.maxAttempts(),
            takeExpired);
    claimTook(System.nanoTime() - claimedAt);
    if (claim.takenOver() > 0) {
      metrics.takenOver(claim.takenOver());
      LOG.info(
          "[{}] {}: took over {} events whose lease had expired (the worker that claimed them"
              + " stopped, or stalled for more than polling.lease)",
          context,
          name,
          claim.takenOver());
    }
    if (!claim.expiredToDead().isEmpty()) {
      claim.expiredToDead().forEach(id -> metrics.poison());
      LOG.error(
          "[{}] {}: events {} went DEAD: their lease expired on the last of {} attempts",
          context,
          name,
          claim.expiredToDead(),
          config.maxAttempts());
    }
    if (claim.isEmpty()) {
      return !claim.expiredToDead().isEmpty();
    }
    List<ClaimedEvent> events = claim.events();
    LeaseKeeper.Lease lease =
        leases.hold(
            name, claim.token(), events.stream().map(c -> c.event().id()).toList(), claimedAt);
    try {
      return publishAndFinish(claim, lease);
    } finally {
      leases.end(lease);
    }
  }

  /** Publishes a claimed batch and finishes it; its lease is renewed until the finish starts. */
  private boolean publishAndFinish(Claim claim, LeaseKeeper.Lease lease)
      throws SQLException, InterruptedException {
    Routed routed = route(claim.events());
    long publishStart = System.nanoTime();
    List<KafkaPublisher.Outcome> outcomes = publish(routed.records(), claim, lease);
    long published = System.nanoTime();
    FinishPlan plan = planner.plan(routed.events(), outcomes, lease.expiresAt());
    List<OutboxStore.Failure> failures = new ArrayList<>(routed.unroutable());
    failures.addAll(plan.failures());
    leases.end(lease); // a renewal after the finish would take the released rows for taken over
    OutboxStore.Finish finish = finish(claim, plan.acknowledged(), failures, lease);
    metrics.batch(published - publishStart, System.nanoTime() - published);
    metrics.published(finish.published().size());
    reportLostLease(finish);
    if (plan.stop() != null) {
      throw plan.stop();
    }
    return true;
  }

  /**
   * A claimed batch routed to records.
   *
   * @param records the records to send, one per routed event
   * @param events the events routed, in the order of {@code records}
   * @param unroutable a DEAD failure per event that could not be routed
   */
  private record Routed(
      List<RoutedRecord> records,
      List<ClaimedEvent> events,
      List<OutboxStore.Failure> unroutable) {}

  private Routed route(List<ClaimedEvent> events) {
    List<RoutedRecord> records = new ArrayList<>(events.size());
    List<ClaimedEvent> routed = new ArrayList<>(events.size());
    List<OutboxStore.Failure> unroutable = new ArrayList<>();
    for (ClaimedEvent c : events) {
      EventRouting.Result result = routing.route(c.event(), c.malformed());
      if (result instanceof EventRouting.Routed r) {
        records.add(r.record());
        routed.add(c);
      } else {
        unroutable.add(planner.poison(c, ((EventRouting.Poison) result).cause()));
      }
    }
    return new Routed(records, routed, unroutable);
  }

  /**
   * Sends the records and waits for Kafka while the lease is renewed; stops waiting when another
   * worker took the batch over, or when the lease could not be renewed and only the finish's margin
   * is left.
   */
  private List<KafkaPublisher.Outcome> publish(
      List<RoutedRecord> records, Claim claim, LeaseKeeper.Lease lease)
      throws InterruptedException {
    long margin = finishMargin.toNanos();
    return publisher.sendAll(
        records,
        claim.databaseTime().toEpochMilli(),
        () -> lease.lost() || System.nanoTime() - (lease.expiresAt() - margin) >= 0);
  }

  /** Writes the plan for the batch in one fenced transaction, retried while the lease lasts. */
  private OutboxStore.Finish finish(
      Claim claim,
      List<Long> acknowledged,
      List<OutboxStore.Failure> failures,
      LeaseKeeper.Lease lease)
      throws SQLException, InterruptedException {
    try {
      return finishWithRetries(claim.token(), acknowledged, failures, lease.expiresAt());
    } catch (SQLException e) {
      // E.g. the server ended a session frozen in a transaction (see PollingSource): the rows stay
      // leased to this batch until the lease expires, then another worker publishes them again.
      LOG.warn(
          "[{}] {}: could not finish {} events ({}): their lease expires and another worker"
              + " publishes them again, so they may be published twice",
          context,
          name,
          claim.events().size(),
          ErrorClassifier.describe(e));
      throw e;
    }
  }

  /** Counts and tells the events whose lease another worker took before this finish ran. */
  private void reportLostLease(OutboxStore.Finish finish) {
    if (finish.lost().isEmpty()) {
      return;
    }
    metrics.leaseLost(finish.lost().size());
    LOG.warn(
        "[{}] {}: lost the lease on {} events before finishing them (ids {}): another worker"
            + " took them over after polling.lease expired, so they may be published twice;"
            + " if this repeats, raise polling.lease",
        context,
        name,
        finish.lost().size(),
        finish.lost().size() > 20 ? finish.lost().subList(0, 20) + "..." : finish.lost());
  }

  /**
   * Finishes the batch, reconnecting and trying again while the lease lasts: after Kafka
   * acknowledged the events, giving up would let them be published a second time.
   */
  private OutboxStore.Finish finishWithRetries(
      String token, List<Long> acknowledged, List<OutboxStore.Failure> failures, long deadline)
      throws SQLException, InterruptedException {
    DatabaseOutage outage = new DatabaseOutage();
    while (true) {
      try {
        if (store == null) {
          store = stores.open();
        }
        OutboxStore.Finish finish = store.finish(token, acknowledged, failures);
        outage.over();
        return finish;
      } catch (SQLException e) {
        if (ErrorClassifier.isTransactionRollback(e)) {
          Thread.sleep(rollbackPause().toMillis()); // same connection, try again
          continue;
        }
        closeStore();
        Duration pause = outage.nextPause();
        if (ErrorClassifier.classify(e) != Disposition.RETRY
            || System.nanoTime() + pause.toNanos() - deadline >= 0) {
          throw e;
        }
        outage.tell(e);
        LOG.debug(
            "[{}] {}: finishing {} published events failed ({}); retrying in {} ms",
            context,
            name,
            acknowledged.size(),
            ErrorClassifier.describe(e),
            pause.toMillis());
        Thread.sleep(pause.toMillis());
      }
    }
  }

  /**
   * Failures in a row to reach the database: each one's reconnect pause, and the operator told once
   * a second one in a row shows that the database is unreachable.
   */
  private final class DatabaseOutage {
    private int failures;
    private Instant since;

    /** Counts a failure; the pause before the next attempt. */
    Duration nextPause() {
      return reconnectBackoff.delay(++failures);
    }

    /**
     * Tells the shared outage log. One failure may be a connection the server dropped; a second in
     * a row, on a fresh connection, means the database is unreachable: tell the operator (once).
     */
    void tell(SQLException e) {
      if (since == null) {
        since = Instant.now();
      }
      if (failures >= 2) {
        databaseOutages.down(since, ErrorClassifier.describe(e));
      }
    }

    /** The database answered: says so when it had failed. */
    void over() {
      if (failures > 0) {
        databaseOutages.up("claiming and publishing resume");
      }
      failures = 0;
      since = null;
    }

    int failures() {
      return failures;
    }
  }

  /** A short random pause before running a rolled-back transaction again. */
  private static Duration rollbackPause() {
    return Duration.ofMillis(5 + ThreadLocalRandom.current().nextInt(20));
  }

  /**
   * The pause after {@code emptyClaims} claims in a row found nothing: an eighth of {@code
   * interval} after the first, doubling to the whole interval from the fourth on. A table that has
   * just gone quiet is read again soon — events written behind the batches in flight, or waiting
   * for their aggregate's previous event to be marked published, are taken within milliseconds —
   * while an idle table costs one claim per interval and worker, as before.
   */
  static Duration idlePause(Duration interval, int emptyClaims) {
    return interval.dividedBy(1L << Math.max(0, 4 - Math.max(1, emptyClaims)));
  }

  private void idle(Duration base) throws InterruptedException {
    long ms = Backoff.jittered(base, ThreadLocalRandom.current()).toMillis();
    long until = System.nanoTime() + ms * 1_000_000;
    while (running && System.nanoTime() < until) {
      Thread.sleep(Math.min(50, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
    }
  }

  private void closeStore() {
    if (store != null) {
      store.closeQuietly();
      store = null;
    }
  }
}
