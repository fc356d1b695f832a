package io.outboxrelay.relay.metrics;

/**
 * The relay's metric names, in Micrometer's dotted form; the Prometheus registry renders {@code
 * outbox.relay.events.published} as {@code outbox_relay_events_published_total} (counters get
 * {@code _total}, timers {@code _seconds}). The metrics table in docs/operations.md lists the
 * rendered names.
 */
public final class MetricNames {

  private MetricNames() {}

  /** Counter: events Kafka acknowledged. */
  public static final String PUBLISHED = "outbox.relay.events.published";

  /** Counter: events sent again although Kafka had acknowledged them (duplicates). */
  public static final String RESENT = "outbox.relay.events.resent";

  /**
   * Counter, label {@code outcome} = committed | aborted: Kafka transactions of a relay with {@code
   * delivery.guarantee=exactly-once}, each one batch and its position.
   */
  public static final String TRANSACTIONS = "outbox.relay.transactions";

  /** Timer (histogram): how long committing one Kafka transaction took. */
  public static final String TRANSACTION_COMMIT = "outbox.relay.transaction.commit";

  /** Timer (histogram): how long one polling claim transaction took (polling mode). */
  public static final String CLAIM = "outbox.relay.claim";

  /** Counter: events to be sent again after a transient failure. */
  public static final String RETRIED = "outbox.relay.events.retried";

  /** Counter, label {@code outcome} = dead | skipped: events the relay gave up on. */
  public static final String FAILED = "outbox.relay.events.failed";

  /**
   * Counter, label {@code kind} = backwards | gap: events whose aggregate_version did not follow
   * the last one published for their aggregate ({@code router.version.check}).
   */
  public static final String VERSION_ANOMALIES = "outbox.relay.aggregate.version.anomalies";

  /** Timer (histogram): from created_at to Kafka's acknowledgement. */
  public static final String DELAY = "outbox.relay.publish.delay";

  /** Gauge: unix time of the last position commit (CDC) or finish (polling). */
  public static final String LAST_COMMIT = "outbox.relay.last.commit.timestamp.seconds";

  /** Gauge: age of the oldest event not yet published (polling) or the reader's lag (CDC). */
  public static final String OLDEST_AGE = "outbox.relay.oldest.unpublished.age.seconds";

  /** Gauge: PENDING and PROCESSING rows (polling; counted up to a cap). */
  public static final String BACKLOG = "outbox.relay.backlog.events";

  /** Gauge: bytes of binlog the reader has not read yet (CDC). */
  public static final String BINLOG_BEHIND = "outbox.relay.binlog.behind.bytes";

  /**
   * Gauge: bytes of WAL the relay's replication slot holds, from its {@code confirmed_flush_lsn} to
   * the server's current position (CDC on PostgreSQL).
   */
  public static final String SLOT_BEHIND = "outbox.relay.slot.behind.bytes";

  /**
   * Gauge, label {@code wal_status}: 1 for the relay's replication slot's {@code wal_status}
   * ({@code reserved}, {@code extended}, {@code unreserved}, {@code lost}), 0 for the others (CDC
   * on PostgreSQL).
   */
  public static final String SLOT_WAL_STATUS = "outbox.relay.slot.wal.status";

  /** Gauge, label {@code event_type}: DEAD rows (polling) or events skipped since start (CDC). */
  public static final String DEAD = "outbox.relay.dead.events";

  /** Gauge 0/1: the source database answers. */
  public static final String DATABASE_REACHABLE = "outbox.relay.database.reachable";

  /** Gauge 0/1: Kafka answers. */
  public static final String KAFKA_REACHABLE = "outbox.relay.kafka.reachable";

  /** Gauge 0/1: the relay is doing its job (streaming or claiming). */
  public static final String READY = "outbox.relay.ready";

  /** Gauge, label {@code role} = active | leader | standby: 1 for the relay's current role. */
  public static final String ROLE = "outbox.relay.role";
}
