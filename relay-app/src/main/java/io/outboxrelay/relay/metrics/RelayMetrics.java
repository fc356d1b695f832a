package io.outboxrelay.relay.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the relay did since it started, kept in a Micrometer registry that the HTTP endpoint renders
 * in the Prometheus text format ({@code /metrics}) and the throughput line reads. The same metric
 * means the same in both modes; {@link MetricNames} lists them. Thread-safe; cheap enough to update
 * per event.
 *
 * <p>The gauges a source reads from elsewhere (the oldest unpublished event, the backlog, DEAD
 * rows) live in {@link SourceGauges}; reachability and readiness in {@link RelayHealth}.
 */
public final class RelayMetrics {

  /** Buckets of the commit-to-acknowledgement delay, in seconds. */
  private static final double[] DELAY_BUCKETS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800
  };

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Clock clock;
  private final RelayHealth health;
  private final SourceGauges sourceGauges;
  private final Counter published;
  private final Counter resent;
  private final Counter retried;
  private final Counter transactionsCommitted;
  private final Counter transactionsAborted;
  private final Timer transactionCommit;
  private final Timer claim;
  private final Counter dead;
  private final Counter skipped;
  private final Counter versionsBackwards;
  private final Counter versionGaps;
  private final LongAdder leaseLost = new LongAdder();
  private final Timer delay;
  private final LongAdder takenOver = new LongAdder();
  private final AtomicLong lastEventCreatedAtMillis = new AtomicLong(-1);
  private final AtomicLong lastCommitMillis = new AtomicLong(-1);
  private final LongAdder batches = new LongAdder();
  private final LongAdder publishNanos = new LongAdder();
  private final LongAdder commitNanos = new LongAdder();

  /** A consistent-enough copy of the counters. */
  public record Snapshot(
      long published,
      long resent,
      long retries,
      long poison,
      long leaseLost,
      Instant lastEventCreatedAt,
      long batches,
      long publishNanos,
      long commitNanos) {}

  /** Counters on the system clock, for tests and embedding. */
  public RelayMetrics() {
    this(Clock.systemUTC());
  }

  /**
   * Creates the counters and registers them, with the JVM's own metrics.
   *
   * @param clock the wall clock, for the commit-to-acknowledgement delay
   */
  public RelayMetrics(Clock clock) {
    this.clock = clock;
    this.health = new RelayHealth();
    MeterRegistry r = registry;
    published =
        Counter.builder(MetricNames.PUBLISHED).description("Events Kafka acknowledged").register(r);
    resent =
        Counter.builder(MetricNames.RESENT)
            .description("Events sent again although Kafka had acknowledged them (duplicates)")
            .register(r);
    retried =
        Counter.builder(MetricNames.RETRIED)
            .description("Events to be sent again after a transient failure")
            .register(r);
    transactionsCommitted = transactions(r, "committed");
    transactionsAborted = transactions(r, "aborted");
    transactionCommit =
        Timer.builder(MetricNames.TRANSACTION_COMMIT)
            .description("How long committing one Kafka transaction took (exactly-once)")
            .serviceLevelObjectives(buckets())
            .register(r);
    claim =
        Timer.builder(MetricNames.CLAIM)
            .description("How long one polling claim transaction took")
            .serviceLevelObjectives(buckets())
            .register(r);
    dead = failed(r, "dead");
    skipped = failed(r, "skipped");
    versionsBackwards = versionAnomalies(r, "backwards");
    versionGaps = versionAnomalies(r, "gap");
    delay =
        Timer.builder(MetricNames.DELAY)
            .description(
                "From the event's created_at to Kafka's acknowledgement (database clock to relay"
                    + " clock)")
            .serviceLevelObjectives(buckets())
            .register(r);
    Gauge.builder(MetricNames.LAST_COMMIT, lastCommitMillis, v -> v.get() < 0 ? 0 : v.get() / 1e3)
        .description(
            "Unix time of the last position commit (CDC: handed to the position store) or finish"
                + " (polling)")
        .register(r);
    this.sourceGauges = new SourceGauges(r);
    health.register(r);
    // Not ProcessorMetrics: its process_cpu_time_ns_total and system_cpu_count break Prometheus
    // naming rules (promtool check metrics).
    new JvmMemoryMetrics().bindTo(r);
    new JvmThreadMetrics().bindTo(r);
    new UptimeMetrics().bindTo(r);
  }

  /** The counter of Kafka transactions, one per {@code outcome}. */
  private static Counter transactions(MeterRegistry r, String outcome) {
    return Counter.builder(MetricNames.TRANSACTIONS)
        .description(
            "Kafka transactions, each one batch and the position after it"
                + " (delivery.guarantee=exactly-once)")
        .tag("outcome", outcome)
        .register(r);
  }

  /** The counter of events given up on, one per {@code outcome}. */
  private static Counter failed(MeterRegistry r, String outcome) {
    return Counter.builder(MetricNames.FAILED)
        .description("Events the relay gave up on: DEAD (polling) or skipped (CDC)")
        .tag("outcome", outcome)
        .register(r);
  }

  /** The counter of aggregate_version anomalies, one per {@code kind}. */
  private static Counter versionAnomalies(MeterRegistry r, String kind) {
    return Counter.builder(MetricNames.VERSION_ANOMALIES)
        .description(
            "Events whose aggregate_version did not follow the last one published for their"
                + " aggregate (router.version.check)")
        .tag("kind", kind)
        .register(r);
  }

  private static Duration[] buckets() {
    Duration[] d = new Duration[DELAY_BUCKETS.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = Duration.ofNanos((long) (DELAY_BUCKETS[i] * 1e9));
    }
    return d;
  }

  /**
   * The registry the HTTP endpoint renders.
   *
   * @return the Prometheus registry
   */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * Readiness, liveness and reachability, which the sources report to.
   *
   * @return the health state
   */
  public RelayHealth health() {
    return health;
  }

  /**
   * The gauges refreshed from the source (backlog, oldest unpublished event, DEAD rows).
   *
   * @return the source gauges
   */
  public SourceGauges sourceGauges() {
    return sourceGauges;
  }

  /**
   * Counts events Kafka acknowledged.
   *
   * @param n how many
   */
  public void published(int n) {
    published.increment(n);
  }

  /**
   * Counts a committed Kafka transaction of an exactly-once relay.
   *
   * @param commitNanos how long its commit took
   */
  public void transactionCommitted(long commitNanos) {
    transactionsCommitted.increment();
    transactionCommit.record(commitNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /**
   * Times one polling claim transaction (found something or not).
   *
   * @param nanos how long it took
   */
  public void claimed(long nanos) {
    claim.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /** Counts a Kafka transaction aborted (its records are sent again in a new one). */
  public void transactionAborted() {
    transactionsAborted.increment();
  }

  /**
   * Counts events sent again although Kafka had acknowledged them (duplicates in Kafka).
   *
   * @param n how many
   */
  public void resent(int n) {
    resent.increment(n);
  }

  /** Counts one event to be sent again after a transient failure. */
  public void retry() {
    retry(1);
  }

  /**
   * Counts events to be sent again after a transient failure.
   *
   * @param n how many
   */
  public void retry(int n) {
    retried.increment(n);
  }

  /** Counts one event that went DEAD (polling): retrying cannot publish it. */
  public void poison() {
    dead.increment();
  }

  /**
   * Counts one event skipped because it cannot be published (CDC with {@code
   * cdc.poison.action=skip}).
   *
   * @param eventType the event's type, or {@code null} when the row could not be read
   */
  public void skipped(String eventType) {
    skipped.increment();
    sourceGauges.skipped(eventType == null ? "unknown" : eventType);
  }

  /**
   * Counts one event whose aggregate version is not above the last one published for its aggregate.
   */
  public void versionBackwards() {
    versionsBackwards.increment();
  }

  /** Counts one event whose aggregate version skips ahead of the last one published plus one. */
  public void versionGap() {
    versionGaps.increment();
  }

  /**
   * How many events since start had an aggregate version not above their aggregate's last one.
   *
   * @return the count
   */
  public long versionsBackwardsCount() {
    return (long) versionsBackwards.count();
  }

  /**
   * How many events since start had an aggregate version that skipped ahead.
   *
   * @return the count
   */
  public long versionGapsCount() {
    return (long) versionGaps.count();
  }

  /**
   * Counts events whose lease another worker took before this one finished.
   *
   * @param n how many
   */
  public void leaseLost(int n) {
    leaseLost.add(n);
  }

  /**
   * Counts events this process took over from a claim whose lease had expired.
   *
   * @param n how many
   */
  public void takenOver(int n) {
    takenOver.add(n);
  }

  /**
   * How many events this process took over from expired leases since it started.
   *
   * @return the count
   */
  public long takenOver() {
    return takenOver.sum();
  }

  /**
   * Records an acknowledged event's creation time: the delay histogram, and the age of the newest
   * published event for the throughput line.
   *
   * @param createdAt the event's creation time, or {@code null} when unknown
   */
  public void observeCreatedAt(Instant createdAt) {
    if (createdAt != null) {
      long millis = createdAt.toEpochMilli();
      lastEventCreatedAtMillis.accumulateAndGet(millis, Math::max);
      // The two clocks may differ a little: a negative delay is recorded as none.
      delay.record(Math.max(0, clock.millis() - millis), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Records one batch: how long sending it until the last acknowledgement took, and how long
   * committing its position (or finishing its rows) took. The batch's position is committed now.
   *
   * @param publishNanos send until all acknowledged
   * @param commitNanos the position commit or the finishing statement
   */
  public void batch(long publishNanos, long commitNanos) {
    batches.increment();
    this.publishNanos.add(publishNanos);
    this.commitNanos.add(commitNanos);
    lastCommitMillis.set(clock.millis());
    health.beat();
  }

  /**
   * Reads the counters.
   *
   * @return the current values
   */
  public Snapshot snapshot() {
    long created = lastEventCreatedAtMillis.get();
    return new Snapshot(
        (long) published.count(),
        (long) resent.count(),
        (long) retried.count(),
        (long) (dead.count() + skipped.count()),
        leaseLost.sum(),
        created < 0 ? null : Instant.ofEpochMilli(created),
        batches.sum(),
        publishNanos.sum(),
        commitNanos.sum());
  }
}
