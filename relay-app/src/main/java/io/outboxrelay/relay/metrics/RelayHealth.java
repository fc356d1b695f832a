package io.outboxrelay.relay.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Whether the relay is doing its job, for {@code /health/ready} and {@code /health/live}, and
 * whether its dependencies answer, for the reachability gauges. Reporters: the relay's lifecycle
 * ({@link #running()}, {@link #stopping()}), the source loops ({@link #beat()}), and the periodic
 * checks run by a {@link Refresher} (a Kafka probe, the polling breaker, the source's own queries
 * and Debezium's streaming metrics). Each reporter names itself, so that one reporter's success
 * does not hide another's failure. Thread-safe.
 */
public final class RelayHealth {

  /**
   * How long the source loops may go without a {@link #beat()} before the process counts as wedged.
   * Every loop beats at least every few seconds, also while it waits for an outage to end.
   */
  public static final Duration LIVE_WINDOW = Duration.ofMinutes(2);

  /** A dependency whose reachability is reported. */
  public enum Dependency {
    /** The source database (binlog connection in CDC, SQL connections in polling). */
    DATABASE("database unreachable"),
    /** The Kafka cluster. */
    KAFKA("Kafka unreachable");

    private final String reason;

    Dependency(String reason) {
      this.reason = reason;
    }
  }

  /** Where the relay is in its life. */
  private enum Phase {
    /** Starting: startup checks, waiting for Kafka's first answer, the CDC snapshot. */
    STARTING,
    /** Started: streaming (CDC) or claiming (polling) whenever its dependencies answer. */
    RUNNING,
    /** Draining after a stop request, or stopped. */
    STOPPING
  }

  /**
   * The answer of {@code /health/ready}.
   *
   * @param ready whether the relay is doing its job
   * @param reason why not (starting, database unreachable, Kafka unreachable, stopping), or {@code
   *     ready}
   */
  public record Readiness(boolean ready, String reason) {}

  /**
   * The reporter of a dependency whose host name does not resolve yet, at start: its reason (which
   * names the host and the key) is part of the readiness reason while the relay starts.
   */
  public static final String RESOLVING = "resolving";

  private final Map<Dependency, Map<String, String>> down = new EnumMap<>(Dependency.class);
  private volatile Phase phase = Phase.STARTING;
  private volatile long lastBeatNanos = System.nanoTime();
  private volatile Supplier<String> roleSource = () -> "";

  RelayHealth() {
    for (Dependency d : Dependency.values()) {
      down.put(d, new TreeMap<>());
    }
  }

  void register(MeterRegistry registry) {
    Gauge.builder(MetricNames.DATABASE_REACHABLE, this, h -> h.reachable(Dependency.DATABASE))
        .description("1 when the source database answers, else 0")
        .register(registry);
    Gauge.builder(MetricNames.KAFKA_REACHABLE, this, h -> h.reachable(Dependency.KAFKA))
        .description("1 when Kafka answers, else 0")
        .register(registry);
    Gauge.builder(MetricNames.READY, this, h -> h.readiness().ready() ? 1 : 0)
        .description("1 while the relay is streaming (CDC) or claiming (polling), else 0")
        .register(registry);
    for (String r : new String[] {"active", "leader", "standby"}) {
      Gauge.builder(MetricNames.ROLE, this, h -> r.equals(h.role()) ? 1 : 0)
          .description(
              "1 for the relay's role: active (polling: every process publishes), leader or standby (CDC)")
          .tag("role", r)
          .register(registry);
    }
  }

  /**
   * Where the relay's role comes from: the source's own description ({@code leader (epoch 3)},
   * {@code standby (holder ..., epoch 3)}), or nothing for a source without standbys.
   *
   * @param source the source's role, read at each scrape; never null
   */
  public void roleFrom(Supplier<String> source) {
    roleSource = Objects.requireNonNull(source, "source");
  }

  /** The role as the gauge names it: {@code leader}, {@code standby} or {@code active}. */
  /**
   * Whether the relay is a CDC standby now: it publishes nothing, but can still read the leader's
   * committed position.
   *
   * @return true for a standby
   */
  public boolean standby() {
    return "standby".equals(role());
  }

  String role() {
    String r = roleSource.get();
    if (r != null && r.startsWith("leader")) {
      return "leader";
    }
    if (r != null && r.startsWith("standby")) {
      return "standby";
    }
    return "active";
  }

  /**
   * The relay has started: from now on it is ready whenever its dependencies answer. Starting
   * proved that both answer (Kafka answered, the source connected), so what a periodic check
   * reported while starting is forgotten; the next check reports afresh.
   */
  public void running() {
    synchronized (down) {
      down.values().forEach(Map::clear);
    }
    lastBeatNanos = System.nanoTime();
    phase = Phase.RUNNING;
  }

  /** The relay is stopping: no longer ready. */
  public void stopping() {
    phase = Phase.STOPPING;
  }

  /** A source loop made progress (or is waiting on purpose): the process is not wedged. */
  public void beat() {
    lastBeatNanos = System.nanoTime();
  }

  /**
   * Reports a dependency unreachable, as seen by one reporter.
   *
   * @param dependency what is unreachable
   * @param reporter who saw it, e.g. a worker's name
   * @param reason why, one short line (never a stack trace)
   */
  public void down(Dependency dependency, String reporter, String reason) {
    synchronized (down) {
      down.get(dependency).put(reporter, reason == null ? "" : reason);
    }
  }

  /**
   * Reports a dependency reachable, as seen by one reporter.
   *
   * @param dependency what answers
   * @param reporter who saw it
   */
  public void up(Dependency dependency, String reporter) {
    synchronized (down) {
      down.get(dependency).remove(reporter);
    }
  }

  /**
   * Whether no reporter sees the dependency unreachable.
   *
   * @param dependency the dependency
   * @return 1 when reachable, else 0
   */
  public int reachable(Dependency dependency) {
    synchronized (down) {
      return down.get(dependency).isEmpty() ? 1 : 0;
    }
  }

  /**
   * Whether the relay is doing its job, and if not why.
   *
   * @return the readiness
   */
  public Readiness readiness() {
    Phase p = phase;
    if (p == Phase.STARTING) {
      for (Dependency d : Dependency.values()) {
        if (reachable(d) == 0) {
          String unresolved;
          synchronized (down) {
            unresolved = down.get(d).get(RESOLVING);
          }
          return new Readiness(
              false, "starting: " + d.reason + (unresolved == null ? "" : ": " + unresolved));
        }
      }
      return new Readiness(false, "starting");
    }
    if (p == Phase.STOPPING) {
      return new Readiness(false, "stopping");
    }
    if ("standby".equals(role())) {
      return new Readiness(false, "standby");
    }
    for (Dependency d : Dependency.values()) {
      if (reachable(d) == 0) {
        return new Readiness(false, d.reason);
      }
    }
    return new Readiness(true, "ready");
  }

  /**
   * Whether the process is not wedged: true while starting or stopping (each bounded by its own
   * waits), and while running when a source loop beat within {@link #LIVE_WINDOW} or a dependency
   * is down (the loops wait for it, which is no reason to restart the process).
   *
   * @return true when live
   */
  public boolean live() {
    return phase != Phase.RUNNING
        || System.nanoTime() - lastBeatNanos < LIVE_WINDOW.toNanos()
        || reachable(Dependency.DATABASE) == 0
        || reachable(Dependency.KAFKA) == 0; // the loops wait for it on purpose
  }

  /**
   * Seconds since a source loop last beat.
   *
   * @return the seconds
   */
  public long secondsSinceBeat() {
    return Duration.ofNanos(System.nanoTime() - lastBeatNanos).toSeconds();
  }
}
