package io.outboxrelay.relay.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gauges whose values come from the source rather than from the events the relay handles: the age
 * of the oldest unpublished event, the backlog, DEAD rows by event type. A periodic check run by a
 * {@link Refresher} refreshes them, so that a scrape reads a cached value and never queries the
 * database. A gauge appears in the output once it has a value (a polling relay has no binlog
 * gauge), but for the DEAD gauge, which says 0 (one series with an empty {@code event_type}) while
 * there is no DEAD event. Thread-safe.
 */
public final class SourceGauges {

  /** The {@code event_type} of the DEAD gauge's one series while there is no DEAD event. */
  static final String NO_EVENT_TYPE = "";

  /** At most this many event types get a DEAD gauge; the rest are counted under "other". */
  static final int MAX_EVENT_TYPES = 100;

  private final MeterRegistry registry;
  private final Map<String, AtomicLong> values = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> slotStatus = new TreeMap<>();
  private final Map<String, Long> skipped = new TreeMap<>();
  private MultiGauge dead;

  SourceGauges(MeterRegistry registry) {
    this.registry = registry;
    // A healthy relay exports 0, so that a dashboard shows 0 rather than "no data" and an alert
    // can tell healthy from missing.
    publishDead(Map.of());
  }

  /**
   * Sets the age of the oldest event not yet published: the oldest PENDING or PROCESSING row by the
   * database clock (polling), how far the binlog reader is behind the server (CDC).
   *
   * @param seconds the age; 0 when nothing waits
   */
  public void oldestUnpublishedAge(double seconds) {
    set(
        MetricNames.OLDEST_AGE,
        "Age of the oldest event not yet published (polling) or how far the binlog reader is"
            + " behind the server (CDC)",
        Math.round(Math.max(0, seconds) * 1000),
        1e3);
  }

  /**
   * Sets the backlog of a polling relay: PENDING and PROCESSING rows, counted up to a cap.
   *
   * @param events the count
   */
  public void backlog(long events) {
    set(
        MetricNames.BACKLOG,
        "PENDING and PROCESSING rows (polling; counted up to 100000)",
        Math.max(0, events),
        1);
  }

  /**
   * Sets the binlog bytes a CDC relay has not read yet.
   *
   * @param bytes the bytes
   */
  public void binlogBehind(long bytes) {
    set(
        MetricNames.BINLOG_BEHIND,
        "Bytes of binlog the CDC reader has not read yet",
        Math.max(0, bytes),
        1);
  }

  /**
   * Sets the WAL bytes a CDC relay's replication slot holds (PostgreSQL).
   *
   * @param bytes the bytes from the slot's {@code confirmed_flush_lsn} to the current WAL position
   */
  public void slotBehind(long bytes) {
    set(
        MetricNames.SLOT_BEHIND,
        "Bytes of WAL the CDC relay's replication slot holds past its confirmed_flush_lsn"
            + " (PostgreSQL)",
        Math.max(0, bytes),
        1);
  }

  /**
   * Sets the {@code wal_status} of a CDC relay's replication slot (PostgreSQL): 1 for its status, 0
   * for the others.
   *
   * @param status {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}
   */
  public synchronized void slotWalStatus(String status) {
    for (String each : List.of("reserved", "extended", "unreserved", "lost")) {
      String name = MetricNames.SLOT_WAL_STATUS;
      slotStatus
          .computeIfAbsent(
              each,
              s -> {
                AtomicLong v = new AtomicLong();
                Gauge.builder(name, v, AtomicLong::get)
                    .tags(Tags.of("wal_status", s))
                    .description(
                        "1 for the wal_status of the CDC relay's replication slot, 0 for the"
                            + " others (PostgreSQL)")
                    .register(registry);
                return v;
              })
          .set(each.equals(status) ? 1 : 0);
    }
  }

  /**
   * Replaces the DEAD rows by event type (polling).
   *
   * @param byType the count per event type; types missing from it count 0
   */
  public synchronized void dead(Map<String, Long> byType) {
    Map<String, Long> capped = new TreeMap<>();
    byType.forEach(
        (type, n) -> {
          String key = capped.size() < MAX_EVENT_TYPES || capped.containsKey(type) ? type : "other";
          capped.merge(key, n, Long::sum);
        });
    publishDead(capped);
  }

  /**
   * Counts one event skipped by a CDC relay, as its "DEAD" figure.
   *
   * @param eventType the event type
   */
  synchronized void skipped(String eventType) {
    String key =
        skipped.size() < MAX_EVENT_TYPES || skipped.containsKey(eventType) ? eventType : "other";
    skipped.merge(key, 1L, Long::sum);
    publishDead(skipped);
  }

  private void publishDead(Map<String, Long> byType) {
    if (dead == null) {
      dead =
          MultiGauge.builder(MetricNames.DEAD)
              .description("DEAD rows (polling) or events skipped since start (CDC), by event_type")
              .register(registry);
    }
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    Map<String, Long> copy = new TreeMap<>(byType);
    copy.forEach((type, n) -> rows.add(MultiGauge.Row.of(Tags.of("event_type", type), n)));
    if (rows.isEmpty()) {
      // No DEAD event of any type: one series of 0 (an empty label is no label to Prometheus).
      rows.add(MultiGauge.Row.of(Tags.of("event_type", NO_EVENT_TYPE), 0));
    }
    dead.register(rows, true);
  }

  private void set(String name, String description, long value, double scale) {
    values
        .computeIfAbsent(
            name,
            n -> {
              AtomicLong v = new AtomicLong();
              Gauge.builder(n, v, x -> x.get() / scale).description(description).register(registry);
              return v;
            })
        .set(value);
  }
}
