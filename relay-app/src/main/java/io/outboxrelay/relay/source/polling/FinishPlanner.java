package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.PollingConfig;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.SendVerdict;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a polling worker's finish writes for each event of a sent batch, from Kafka's answer
 * for it: published, DEAD, a retry that counts an attempt, or back to PENDING without counting one
 * (Kafka or the partition unavailable, or Kafka refused the relay itself). Touches neither the
 * database nor the producer; it may ask the {@link KafkaBreaker} whether Kafka answers.
 *
 * <p>Owned by one worker and used from its thread only.
 */
final class FinishPlanner {

  private static final Logger LOG = LoggerFactory.getLogger(FinishPlanner.class);

  /**
   * How long after the database's now an event released during a Kafka outage is due again. The
   * breaker holds this process's claims back until Kafka answers; the pause spares other relay
   * processes on the table a claim that would fail the same way.
   */
  static final Duration RELEASE_DELAY = Duration.ofSeconds(1);

  private final String name;
  private final String context;
  private final int maxAttempts;
  private final KafkaBreaker breaker;
  private final RelayMetrics metrics;
  private final Backoff retryBackoff;

  /** Time kept back from the lease for the finishing transaction. */
  private final Duration finishMargin;

  /**
   * @param name the worker's name, for the log
   * @param context the log prefix
   * @param config the polling settings (attempts and retry backoff)
   * @param breaker the relay's breaker, asked whether Kafka is down
   * @param metrics counts published, retried and DEAD events
   * @param finishMargin the part of the lease kept back for the finish
   */
  FinishPlanner(
      String name,
      String context,
      PollingConfig config,
      KafkaBreaker breaker,
      RelayMetrics metrics,
      Duration finishMargin) {
    this.name = name;
    this.context = context;
    this.maxAttempts = config.maxAttempts();
    this.breaker = breaker;
    this.metrics = metrics;
    this.finishMargin = finishMargin;
    this.retryBackoff =
        new Backoff(
            config.backoffInitial(),
            config.backoffMax(),
            config.backoffMultiplier(),
            Backoff.JITTER,
            ThreadLocalRandom.current());
  }

  /**
   * What the finish does with the events of a sent batch.
   *
   * @param acknowledged the ids Kafka acknowledged: marked published
   * @param failures what becomes of the others: DEAD, a retry, or back to PENDING
   * @param stop when Kafka refused the relay itself, the failure that stops it once the batch is
   *     finished; otherwise null
   */
  record FinishPlan(
      List<Long> acknowledged, List<OutboxStore.Failure> failures, RelayFailure stop) {}

  /**
   * Decides from each routed event's outcome what becomes of it: acknowledged, it is published; a
   * failure that is the event's for good makes it DEAD; one that may pass is retried or goes back
   * to PENDING (see {@link #reschedule}); one that needs an operator sends it back to PENDING and
   * stops the relay.
   *
   * @param routed the events sent, in the order of {@code outcomes}
   * @param outcomes one per event
   * @param leaseExpiresAt when the batch's lease expires, in {@link System#nanoTime()} terms
   */
  FinishPlan plan(
      List<ClaimedEvent> routed, List<KafkaPublisher.Outcome> outcomes, long leaseExpiresAt)
      throws InterruptedException {
    List<Long> acknowledged = new ArrayList<>(routed.size());
    List<OutboxStore.Failure> failures = new ArrayList<>();
    List<Unsent> unsent = new ArrayList<>();
    RelayFailure stop = null;
    for (int i = 0; i < routed.size(); i++) {
      ClaimedEvent c = routed.get(i);
      KafkaPublisher.Outcome o = outcomes.get(i);
      SendVerdict verdict = o.verdict();
      switch (verdict) {
        case PUBLISHED -> {
          acknowledged.add(c.event().id());
          metrics.observeCreatedAt(c.event().createdAt());
        }
        case DEAD -> failures.add(poison(c, o.error()));
        case RETRY, UNAVAILABLE ->
            unsent.add(new Unsent(c, verdict, ErrorClassifier.describe(o.error())));
        case STOP -> {
          failures.add(release(c, Duration.ZERO, ErrorClassifier.describe(o.error())));
          if (stop == null) {
            stop =
                new RelayFailure(
                    "Kafka refused the relay ("
                        + ErrorClassifier.describe(o.error())
                        + "): fix the Kafka credentials or ACLs"
                        + " and restart; the events are back to PENDING",
                    o.error());
          }
        }
      }
    }
    if (!unsent.isEmpty()) {
      failures.addAll(reschedule(unsent, acknowledged.isEmpty(), leaseExpiresAt));
    }
    return new FinishPlan(acknowledged, failures, stop);
  }

  /** An event Kafka did not take, for a reason that may pass. */
  private record Unsent(ClaimedEvent event, SendVerdict verdict, String reason) {}

  /**
   * Decides whose problem the transient failures of a batch are. Kafka is down when the breaker is
   * already open, or when nothing of the batch reached Kafka and Kafka does not answer a metadata
   * request either: then every such event goes back to PENDING without counting an attempt, and the
   * breaker opens, which pauses claiming. Otherwise Kafka works, so a failure that persists belongs
   * to the event (its topic does not exist, its partition does not take it) and counts as an
   * attempt; only a partition that is briefly without a leader or replicas never counts.
   */
  private List<OutboxStore.Failure> reschedule(
      List<Unsent> unsent, boolean nothingAcknowledged, long leaseExpiresAt)
      throws InterruptedException {
    // Leave the finish its margin: the probe gets what is left of the lease before it.
    long budget = leaseExpiresAt - finishMargin.toNanos() / 2 - System.nanoTime();
    List<OutboxStore.Failure> failures = new ArrayList<>(unsent.size());
    if (breaker.isDownAfterFailedSend(
        nothingAcknowledged, Duration.ofNanos(Math.max(0, budget)), unsent.get(0).reason())) {
      for (Unsent u : unsent) {
        failures.add(release(u.event(), RELEASE_DELAY, "Kafka unavailable: " + u.reason()));
      }
      LOG.debug(
          "[{}] {}: {} events back to PENDING, attempts not counted: Kafka is unavailable",
          context,
          name,
          unsent.size());
      return failures;
    }
    List<Long> partitionDown = new ArrayList<>();
    String partitionReason = null;
    Duration pause = retryBackoff.delay(1);
    for (Unsent u : unsent) {
      if (u.verdict() == SendVerdict.UNAVAILABLE) {
        partitionDown.add(u.event().event().id());
        partitionReason = partitionReason == null ? u.reason() : partitionReason;
        failures.add(release(u.event(), pause, u.reason()));
      } else {
        failures.add(retry(u.event(), u.reason()));
      }
    }
    if (!partitionDown.isEmpty()) {
      LOG.warn(
          "[{}] {}: {} events not published ({}) while Kafka answers: attempts not counted; next"
              + " attempt in {} ms (ids {})",
          context,
          name,
          partitionDown.size(),
          partitionReason,
          pause.toMillis(),
          partitionDown.size() > 20 ? partitionDown.subList(0, 20) + "..." : partitionDown);
    }
    return failures;
  }

  private static OutboxStore.Failure release(ClaimedEvent c, Duration in, String reason) {
    return new OutboxStore.Failure(c.event().id(), OutboxStore.Failure.Kind.RELEASE, in, reason);
  }

  /**
   * Makes an event DEAD for a failure that is its own for good (it cannot be routed, or Kafka
   * refused it).
   */
  OutboxStore.Failure poison(ClaimedEvent c, Throwable error) {
    return dead(c, ErrorClassifier.describe(error));
  }

  private OutboxStore.Failure dead(ClaimedEvent c, String reason) {
    metrics.poison();
    LOG.error(
        "[{}] {}: event_id={} (id {}) is DEAD: {}",
        context,
        name,
        c.event().eventId(),
        c.event().id(),
        reason);
    return new OutboxStore.Failure(c.event().id(), OutboxStore.Failure.Kind.DEAD, null, reason);
  }

  private OutboxStore.Failure retry(ClaimedEvent c, String reason) {
    if (c.attempt() >= maxAttempts) {
      return dead(c, "failed " + c.attempt() + " of " + maxAttempts + " attempts; last: " + reason);
    }
    metrics.retry();
    Duration pause = retryBackoff.delay(c.attempt());
    LOG.warn(
        "[{}] {}: event_id={} (id {}) not published, attempt {} of {} ({}); next attempt in {} ms",
        context,
        name,
        c.event().eventId(),
        c.event().id(),
        c.attempt(),
        maxAttempts,
        reason,
        pause.toMillis());
    return new OutboxStore.Failure(c.event().id(), OutboxStore.Failure.Kind.RETRY, pause, reason);
  }
}
