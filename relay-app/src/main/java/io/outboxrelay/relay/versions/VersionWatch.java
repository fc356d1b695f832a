package io.outboxrelay.relay.versions;

import io.outboxrelay.relay.config.VersionCheck;
import io.outboxrelay.relay.config.VersionCheckConfig;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.router.OutboxEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-aggregate version check ({@code router.version.check}): told each event as it is handed
 * to Kafka, in the order it is handed, it compares the event's {@code aggregate_version} with the
 * last one it saw for the aggregate. A version not above it ({@link Verdict#BACKWARDS}), and with
 * {@link VersionCheck#CONTIGUOUS} one that skips ahead of it plus one ({@link Verdict#GAP}), is
 * logged at WARN with both versions, the event id and the aggregate (never the payload) and counted
 * in {@link RelayMetrics}. The event is published all the same: the check reports, it never holds
 * back or reorders.
 *
 * <p>The same event seen again with the same version (a retried claim in polling mode) is not an
 * anomaly. A source that may hand an event over again after later events of its aggregate (CDC
 * re-reading from its committed position in a new term) uses a fresh instance for each pass.
 *
 * <p>Memory is bounded: at most {@link VersionCheckConfig#aggregates()} aggregates are remembered,
 * in least-recently-published order; the oldest is forgotten when a new one would exceed the bound,
 * and its next event is then taken as it comes (no anomaly can be seen for it). Each entry holds
 * the aggregate's type and id, its last version and a hash of the last event id: about 150 bytes
 * plus the length of type and id.
 *
 * <p>Thread-safe (polling workers of one process share an instance); the lock is held for one map
 * access per event.
 */
public final class VersionWatch {

  private static final Logger DEFAULT_LOG = LoggerFactory.getLogger(VersionWatch.class);

  /** What the check found for one event. */
  public enum Verdict {
    /** No version, the check is off, or the aggregate's first (or forgotten) version. */
    FIRST,
    /** The next version, or one ahead when gaps are not checked. */
    IN_ORDER,
    /** The same event with the same version again. */
    REPEATED,
    /** Not above the aggregate's last version. */
    BACKWARDS,
    /** More than one above the aggregate's last version ({@link VersionCheck#CONTIGUOUS} only). */
    GAP
  }

  /** The last version seen of one aggregate, and which event brought it. */
  private static final class Last {
    long version;
    int eventIdHash;

    Last(long version, int eventIdHash) {
      this.version = version;
      this.eventIdHash = eventIdHash;
    }
  }

  private static final VersionWatch OFF =
      new VersionWatch(VersionCheckConfig.OFF, null, "", DEFAULT_LOG);

  private final VersionCheck mode;
  private final RelayMetrics metrics;
  private final String context;
  private final Logger log;
  private final Map<String, Last> lastVersions;

  private VersionWatch(
      VersionCheckConfig config, RelayMetrics metrics, String context, Logger log) {
    this.mode = config.mode();
    this.log = log;
    this.metrics = metrics;
    this.context = context;
    this.lastVersions = mode == VersionCheck.OFF ? Map.of() : new Lru(config.aggregates());
  }

  /** A map in access order that drops its least recently used entry beyond the bound. */
  private static final class Lru extends LinkedHashMap<String, Last> {
    private static final long serialVersionUID = 1L;
    private final int bound;

    Lru(int bound) {
      super(16, 0.75f, true);
      this.bound = bound;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Last> eldest) {
      return size() > bound;
    }
  }

  /**
   * A check as configured.
   *
   * @param config the settings
   * @param metrics where anomalies are counted
   * @param context the log prefix, e.g. {@code relay mode=cdc name=outbox-relay}
   * @return the check; a stateless no-op when off
   */
  public static VersionWatch of(VersionCheckConfig config, RelayMetrics metrics, String context) {
    return of(config, metrics, context, DEFAULT_LOG);
  }

  /** As {@link #of(VersionCheckConfig, RelayMetrics, String)}, logging to {@code log} (tests). */
  static VersionWatch of(
      VersionCheckConfig config, RelayMetrics metrics, String context, Logger log) {
    return config.mode() == VersionCheck.OFF
        ? OFF
        : new VersionWatch(config, metrics, context, log);
  }

  /**
   * A check that checks nothing.
   *
   * @return the no-op check
   */
  public static VersionWatch off() {
    return OFF;
  }

  /**
   * Checks one event about to be published; logs and counts an anomaly.
   *
   * @param event the event, in the order it is handed to Kafka
   * @return what the check found
   */
  public Verdict published(OutboxEvent event) {
    Long version = event.aggregateVersion();
    if (mode == VersionCheck.OFF || version == null) {
      return Verdict.FIRST;
    }
    String key = event.aggregateType() + '\u0000' + event.aggregateId();
    int idHash = event.eventId().hashCode();
    long last;
    Verdict verdict;
    synchronized (lastVersions) {
      Last seen = lastVersions.get(key);
      if (seen == null) {
        lastVersions.put(key, new Last(version, idHash));
        return Verdict.FIRST;
      }
      last = seen.version;
      verdict = judge(version, idHash, seen);
      if (verdict == Verdict.REPEATED) {
        return verdict;
      }
      // The newest version stays the mark: one stray old event must not hide later regressions.
      if (version > seen.version) {
        seen.version = version;
        seen.eventIdHash = idHash;
      }
    }
    if (verdict == Verdict.BACKWARDS) {
      metrics.versionBackwards();
      warn(
          "went backwards",
          event,
          version,
          last,
          "published as it is, in the source's order. A consumer with a version check skips it as"
              + " stale: check how the application assigns versions and which events it wrote, or"
              + " requeued, late");
    } else if (verdict == Verdict.GAP) {
      metrics.versionGap();
      warn(
          "skipped ahead",
          event,
          version,
          last,
          "versions in between were not published by this relay (not written, DEAD or skipped, or"
              + " published by another process)");
    }
    return verdict;
  }

  /** Logs an anomaly: what happened, the event (never its payload), and what it means. */
  private void warn(String what, OutboxEvent event, long version, long last, String meaning) {
    log.warn(
        "[{}] aggregate_version {}: {} has version {} after version {}; {}",
        context,
        what,
        event.describe(),
        version,
        last,
        meaning);
  }

  private Verdict judge(long version, int idHash, Last seen) {
    if (version == seen.version && idHash == seen.eventIdHash) {
      return Verdict.REPEATED;
    }
    if (version <= seen.version) {
      return Verdict.BACKWARDS;
    }
    if (mode == VersionCheck.CONTIGUOUS && version - seen.version > 1) {
      return Verdict.GAP;
    }
    return Verdict.IN_ORDER;
  }

  /**
   * How many aggregates the check remembers now.
   *
   * @return the count, at most the configured bound
   */
  public int aggregates() {
    synchronized (lastVersions) {
      return lastVersions.size();
    }
  }
}
