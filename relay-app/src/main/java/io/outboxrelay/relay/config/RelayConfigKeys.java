package io.outboxrelay.relay.config;

import static io.outboxrelay.relay.config.ConfigKey.define;

import io.outboxrelay.relay.config.ConfigKey.Group;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.router.OutboxHeaders;
import io.outboxrelay.router.TopicTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every key of the relay's properties file, declared once. The order here is the order of the
 * reference documentation and of the example properties file.
 *
 * <p>Every number and duration has a range, so no value can overflow where it is used: Debezium
 * takes {@code connect.timeout.ms} and {@code heartbeat.interval.ms} as an {@code int} of
 * milliseconds (24.8 days at most), lease and retry times land in MariaDB {@code TIMESTAMP} columns
 * (which end in 2038), and deadlines are nanoseconds in a {@code long}. The upper bounds are far
 * above any useful value.
 */
public final class RelayConfigKeys {

  private RelayConfigKeys() {}

  /** Keys under this prefix go to the Kafka producer, without the prefix. */
  public static final String KAFKA_PRODUCER_PREFIX = "kafka.producer.";

  /** The column settings: this prefix, then each {@link OutboxColumn#key()}. */
  public static final String COLUMN_PREFIX = "source.column.";

  /** Keys under this prefix go to the embedded Debezium engine, without the prefix. */
  public static final String DEBEZIUM_PREFIX = "debezium.";

  public static final ConfigKey<RelayMode> MODE =
      define("mode", ValueType.oneOf(RelayMode.class))
          .group(Group.RELAY)
          .defaultValue(RelayMode.CDC)
          .doc(
              "How the relay finds new outbox rows: cdc tails the binlog (MySQL/MariaDB); polling"
                  + " claims due rows with SELECT ... FOR UPDATE SKIP LOCKED. The --mode option"
                  + " overrides it.")
          .build();

  public static final ConfigKey<String> RELAY_NAME =
      define("relay.name", ValueType.STRING)
          .group(Group.RELAY)
          .defaultValue("outbox-relay")
          .check(
              v ->
                  v.matches("[A-Za-z0-9._-]{1,64}")
                      ? null
                      : "'" + v + "' must be 1-64 characters of a-z A-Z 0-9 . _ -")
          .doc(
              "Identifies this relay: Kafka client.id, the key of the CDC position and Debezium's"
                  + " logical name. A standby that continues where this relay stopped uses the same"
                  + " name.")
          .build();

  public static final ConfigKey<Duration> STATS_INTERVAL =
      define("relay.stats.interval", ValueType.DURATION_TYPE)
          .group(Group.RELAY)
          .defaultValue(Duration.ofSeconds(30))
          .check(Checks.between(Duration.ofSeconds(1), Duration.ofDays(1)))
          .doc("How often the relay logs a throughput line (published, rate, retries, lag).")
          .build();

  public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT =
      define("relay.shutdown.timeout", ValueType.DURATION_TYPE)
          .group(Group.RELAY)
          .defaultValue(Duration.ofSeconds(30))
          .check(Checks.between(Duration.ofSeconds(1), Duration.ofDays(1)))
          .doc(
              "On SIGTERM, how long to wait for in-flight Kafka acknowledgements before closing"
                  + " anyway. Events not acknowledged by then are published again after restart.")
          .build();

  public static final ConfigKey<Duration> RESOLVE_TIMEOUT =
      define("relay.resolve.timeout", ValueType.DURATION_TYPE)
          .group(Group.RELAY)
          .defaultValue(Duration.ofMinutes(5))
          .check(Checks.between(Duration.ZERO, Duration.ofDays(1)))
          .doc(
              "At start, how long to wait for a host name that does not resolve to an address:"
                  + " source.host, or every host of kafka.bootstrap.servers. A compose service or"
                  + " a Kubernetes Service without ready pods resolves only once it runs, so the"
                  + " relay waits for it as for a database or Kafka that does not answer yet"
                  + " (/health/ready says why, a WARN every 30 s), then exits with code 2 naming"
                  + " the host. 0 exits at once.")
          .build();

  public static final ConfigKey<SourceFlavor> SOURCE_FLAVOR =
      define("source.flavor", ValueType.oneOf(SourceFlavor.class))
          .group(Group.SOURCE)
          .defaultValue(SourceFlavor.MARIADB)
          .doc(
              "The source database: mariadb, mysql or postgresql, in both modes. CDC on"
                  + " postgresql reads a replication slot (docs/postgresql.md says what it does not"
                  + " do yet).")
          .build();

  public static final ConfigKey<String> SOURCE_HOST =
      define("source.host", ValueType.STRING)
          .group(Group.SOURCE)
          .requiredIn(RelayMode.CDC, RelayMode.POLLING)
          .example("127.0.0.1")
          .check(Checks.notBlank())
          .doc("Host name or address of the source database.")
          .build();

  public static final ConfigKey<Integer> SOURCE_PORT =
      define("source.port", ValueType.INT)
          .group(Group.SOURCE)
          .defaultText("3306 (5432 for postgresql)")
          .check(Checks.between(1, 65535))
          .doc("Port of the source database.")
          .build();

  public static final ConfigKey<String> SOURCE_DATABASE =
      define("source.database", ValueType.STRING)
          .group(Group.SOURCE)
          .requiredIn(RelayMode.CDC, RelayMode.POLLING)
          .example("app")
          .check(Checks.identifier())
          .doc(
              "Database (schema) holding the outbox table. The CDC position and schema history"
                  + " tables live there too.")
          .build();

  public static final ConfigKey<String> SOURCE_USER =
      define("source.user", ValueType.STRING)
          .group(Group.SOURCE)
          .requiredIn(RelayMode.CDC, RelayMode.POLLING)
          .example("outbox_relay")
          .check(Checks.notBlank())
          .doc(
              "Database user of the relay; give it only the grants in"
                  + " config/mysql/relay-grants.sql (or config/postgresql/relay-grants.sql).")
          .build();

  public static final ConfigKey<String> SOURCE_PASSWORD =
      define("source.password", ValueType.PASSWORD)
          .group(Group.SOURCE)
          .defaultValue("")
          .doc(
              "Password of source.user. Write ${env:NAME} or ${file:/path} to keep it out of this"
                  + " file.")
          .build();

  public static final ConfigKey<String> SOURCE_TABLE =
      define("source.table", ValueType.STRING)
          .group(Group.SOURCE)
          .defaultValue("outbox_events")
          .check(Checks.identifier())
          .doc("Name of the outbox table.")
          .build();

  /** Declares a column key: an SQL identifier whose default is the relay's own layout's. */
  private static ConfigKey<String> column(String name, String defaultValue, String doc) {
    return define(name, ValueType.STRING)
        .group(Group.SOURCE)
        .defaultValue(defaultValue)
        .check(Checks.identifier())
        .doc(doc)
        .build();
  }

  private static final String OPTIONAL_COLUMN =
      " Optional: read when the table has the column (checked at start in polling mode, from each"
          + " row in CDC mode); when this key is set, the table must have it.";

  /**
   * The column settings {@code source.column.<key>}: one per {@link OutboxColumn}, in its order,
   * with the column's default name and description.
   */
  public static final Map<OutboxColumn, ConfigKey<String>> COLUMNS = columnKeys();

  private static Map<OutboxColumn, ConfigKey<String>> columnKeys() {
    Map<OutboxColumn, ConfigKey<String>> keys = new EnumMap<>(OutboxColumn.class);
    for (OutboxColumn c : OutboxColumn.values()) {
      keys.put(
          c,
          column(
              COLUMN_PREFIX + c.key(),
              c.defaultName(),
              c.description() + (c.required() ? "" : OPTIONAL_COLUMN)));
    }
    return Collections.unmodifiableMap(keys);
  }

  public static final ConfigKey<String> COLUMN_SEQUENCE =
      column(
          "source.column.sequence",
          ColumnMapping.DEFAULT_SEQUENCE,
          "Integer column that orders the rows, assigned at insert (AUTO_INCREMENT, identity):"
              + " polling claims, retention and the operator commands go by it, and messages name"
              + " rows by it. It must be the primary key or the only column of a unique index. Debezium's outbox table has none: its migration adds relay_seq"
              + " (docs/migrating-from-debezium.md).");

  /** The keys that name a column for one role: the sequence, then every column's. */
  private static final List<ConfigKey<String>> ROLE_KEYS = roleKeys();

  private static List<ConfigKey<String>> roleKeys() {
    List<ConfigKey<String>> keys = new ArrayList<>();
    keys.add(COLUMN_SEQUENCE);
    keys.addAll(COLUMNS.values());
    return List.copyOf(keys);
  }

  /**
   * Each role has a column of its own: one column in two roles publishes wrong records without a
   * word (an aggregate id as the event id makes consumers drop every later event of the aggregate
   * as a duplicate; a sequence shared with another role is not unique). Placed columns may repeat a
   * role's column (Debezium's {@code type:header:eventType}).
   */
  static final CrossCheck COLUMNS_HAVE_ONE_ROLE_EACH =
      CrossCheck.of(
          v -> {
            Map<String, List<String>> byColumn = new LinkedHashMap<>();
            for (ConfigKey<String> key : ROLE_KEYS) {
              byColumn
                  .computeIfAbsent(v.get(key).toLowerCase(Locale.ROOT), c -> new ArrayList<>())
                  .add(key.name());
            }
            List<String> shared = new ArrayList<>();
            byColumn.forEach(
                (column, keys) -> {
                  if (keys.size() > 1) {
                    shared.add(
                        String.join(", ", keys.subList(0, keys.size() - 1))
                            + " and "
                            + keys.get(keys.size() - 1)
                            + (keys.size() == 2 ? " both" : " all")
                            + " name column "
                            + column);
                  }
                });
            return shared.isEmpty()
                ? null
                : String.join("; ", shared)
                    + ": each role needs a column of its own (an event id shared by events makes"
                    + " consumers drop the later ones as duplicates; a sequence shared by rows"
                    + " marks them PUBLISHED together); set each key to its own column";
          },
          ROLE_KEYS.toArray(ConfigKey<?>[]::new));

  public static final ConfigKey<String> COLUMN_ADDITIONAL_PLACEMENT =
      define("source.column.additional.placement", ValueType.STRING)
          .group(Group.SOURCE)
          .defaultValue("")
          .check(
              v -> {
                try {
                  for (HeaderPlacement p : HeaderPlacement.parseList(v)) {
                    String problem = Checks.identifier().apply(p.column());
                    if (problem != null) {
                      return problem;
                    }
                  }
                  return null;
                } catch (IllegalArgumentException e) {
                  return e.getMessage();
                }
              })
          .doc(
              "More columns to publish as headers, after the relay's own and before the"
                  + " application headers: a comma-separated list of column:header[:alias], as"
                  + " Debezium's table.fields.additional.placement (only its header placement),"
                  + " e.g. timestamp:header:eventTimestamp. The header's value is the column's"
                  + " value as text, as Debezium and a worker's header converter write it: text as"
                  + " is, an integer in decimal, a TIMESTAMP as ISO-8601 UTC with the column's"
                  + " fractional digits (2026-03-11T10:15:30.123456Z), a DATETIME as milliseconds"
                  + " (precision 0-3) or microseconds (4-6) since the epoch. A NULL value"
                  + " publishes no header; the table must have the columns.")
          .build();

  public static final ConfigKey<Duration> SOURCE_CONNECT_TIMEOUT =
      define("source.connect.timeout", ValueType.DURATION_TYPE)
          .group(Group.SOURCE)
          .defaultValue(Duration.ofSeconds(10))
          .check(Checks.between(Duration.ofMillis(100), Duration.ofHours(1)))
          .doc("How long one attempt to connect to the source database may take.")
          .build();

  public static final ConfigKey<String> TOPIC_TEMPLATE =
      define("router.topic.template", ValueType.STRING)
          .group(Group.ROUTER)
          .defaultValue(TopicTemplate.DEFAULT)
          .check(
              v -> {
                try {
                  TopicTemplate.parse(v);
                  return null;
                } catch (IllegalArgumentException e) {
                  return e.getMessage();
                }
              })
          .doc(
              "Topic of each event; ${aggregate_type} and ${event_type} are replaced by the"
                  + " event's columns. An event whose values make an illegal topic name is poison."
                  + " The key is always the aggregate id; router.headers says which of the relay's"
                  + " own headers are set.")
          .build();

  public static final ConfigKey<String> ROUTER_HEADERS =
      define("router.headers", ValueType.STRING)
          .group(Group.ROUTER)
          .defaultValue(String.join(",", OutboxHeaders.ALL))
          .check(v -> EventRouter.problemWithHeaders(list(v)))
          .doc(
              "The relay's own headers, in this order: a comma-separated list of "
                  + String.join(", ", OutboxHeaders.ALL)
                  + " that includes id (aggregate_version only for events that have one). id"
                  + " alone is what Debezium's outbox EventRouter publishes."
                  + " Application headers may not take these names in any case.")
          .build();

  /** Every placed column's header differs from the relay's own headers. */
  static final CrossCheck PLACEMENTS_AVOID_OWN_HEADERS =
      CrossCheck.of(
          v -> {
            List<String> own = list(v.get(ROUTER_HEADERS));
            for (HeaderPlacement p :
                HeaderPlacement.parseList(v.get(COLUMN_ADDITIONAL_PLACEMENT))) {
              if (own.contains(p.header())) {
                return COLUMN_ADDITIONAL_PLACEMENT.name()
                    + ": header "
                    + p.header()
                    + " is also one of "
                    + ROUTER_HEADERS.name()
                    + ": give the placement another alias";
              }
            }
            return null;
          },
          ROUTER_HEADERS,
          COLUMN_ADDITIONAL_PLACEMENT);

  /** A comma-separated list, blanks around its entries removed, empty entries dropped. */
  static List<String> list(String text) {
    return java.util.Arrays.stream(text.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  public static final ConfigKey<VersionCheck> VERSION_CHECK =
      define("router.version.check", ValueType.oneOf(VersionCheck.class))
          .group(Group.ROUTER)
          .defaultValue(VersionCheck.OFF)
          .doc(
              "Whether the relay checks, per aggregate, the aggregate_version of the events it"
                  + " publishes (tables with that column). backwards: a version not above the last"
                  + " one published for its aggregate is logged at WARN with both versions and"
                  + " counted (outbox_relay_aggregate_version_anomalies_total); contiguous: also a"
                  + " version that skips ahead of the last one plus one, for versions that grow by"
                  + " one per event and one relay process that sees them all (CDC, or a single"
                  + " polling process). The event is published all the same: nothing is held"
                  + " back or reordered.")
          .build();

  public static final ConfigKey<Integer> VERSION_CHECK_AGGREGATES =
      define("router.version.check.aggregates", ValueType.INT)
          .group(Group.ROUTER)
          .defaultValue(100_000)
          .check(Checks.between(1, 10_000_000))
          .doc(
              "Most aggregates the version check remembers, about 150 bytes of heap each plus the"
                  + " length of its type and id; the least recently published one is forgotten"
                  + " first, and its next event is taken as it comes.")
          .build();

  public static final ConfigKey<String> KAFKA_BOOTSTRAP_SERVERS =
      define("kafka.bootstrap.servers", ValueType.STRING)
          .group(Group.KAFKA)
          .requiredIn(RelayMode.CDC, RelayMode.POLLING)
          .example("127.0.0.1:9092")
          .check(Checks.notBlank())
          .doc(
              "Kafka bootstrap servers, host:port[,host:port], an IPv6 address in brackets"
                  + " ([::1]:9092). Any other producer setting is"
                  + " passed as kafka.producer.<setting>; the relay refuses settings that would"
                  + " weaken delivery (acks other than all, enable.idempotence=false,"
                  + " max.in.flight.requests.per.connection above 5, retries=0).")
          .build();

  public static final ConfigKey<DeliveryGuarantee> DELIVERY_GUARANTEE =
      define("delivery.guarantee", ValueType.oneOf(DeliveryGuarantee.class))
          .group(Group.KAFKA)
          .defaultValue(DeliveryGuarantee.AT_LEAST_ONCE)
          .doc(
              "What a consumer may see. at-least-once: after a crash or a failover the events"
                  + " published since the last stored position are published again. exactly-once"
                  + " (CDC mode, MariaDB and PostgreSQL): each batch and the source position after"
                  + " it (binlog position, or WAL position on PostgreSQL) are committed in one"
                  + " Kafka transaction, so a consumer with isolation.level=read_committed sees"
                  + " every event once, through crashes, failovers and broker restarts; it needs"
                  + " brokers that allow transactions and, with ACLs, Write and Describe on the"
                  + " transactional id and the progress topic.")
          .build();

  public static final ConfigKey<String> DELIVERY_TRANSACTIONAL_ID =
      define("delivery.transactional.id", ValueType.STRING)
          .group(Group.KAFKA)
          .usedIn(RelayMode.CDC)
          .example("outbox-relay.orders.app.outbox_events")
          .check(Checks.notBlank())
          .doc(
              "With delivery.guarantee=exactly-once, the prefix of the transactional.id of the"
                  + " relay's two producers (<prefix>.0 and <prefix>.1, used in turn so that a"
                  + " transaction never waits for the previous one's markers); the same for a"
                  + " leader and its standbys, so that a new leader fences the previous one. Grant"
                  + " ACLs on transactional ids by this prefix. Default: outbox-relay.<relay.name>."
                  + "<source.database>.<source.table>.")
          .build();

  public static final ConfigKey<String> DELIVERY_PROGRESS_TOPIC =
      define("delivery.progress.topic", ValueType.STRING)
          .group(Group.KAFKA)
          .usedIn(RelayMode.CDC)
          .defaultValue("outbox-relay-progress")
          .check(
              v ->
                  v.matches("[A-Za-z0-9._-]{1,249}")
                      ? null
                      : "must be a legal Kafka topic name (letters, digits, '.', '_', '-')")
          .doc(
              "With delivery.guarantee=exactly-once, the compacted single-partition topic where the"
                  + " relay commits its source position with each batch, keyed by relay.name; the"
                  + " relay creates it when missing. Several relays may share it.")
          .build();

  /** Polling marks rows in the database, which no Kafka transaction can include. */
  static final CrossCheck EXACTLY_ONCE_NEEDS_CDC =
      CrossCheck.of(
              v ->
                  v.get(DELIVERY_GUARANTEE) != DeliveryGuarantee.EXACTLY_ONCE
                      ? null
                      : v.setting(DELIVERY_GUARANTEE)
                          + " needs CDC mode: a polling relay marks each row PUBLISHED in the"
                          + " database after Kafka acknowledged it, and no Kafka transaction can"
                          + " include that update; use mode=cdc, or at-least-once with idempotent"
                          + " consumers",
              DELIVERY_GUARANTEE)
          .onlyIn(RelayMode.POLLING);

  public static final ConfigKey<Long> CDC_SERVER_ID =
      define("cdc.server.id", ValueType.LONG)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .requiredIn(RelayMode.CDC)
          .notRequiredWhere(SOURCE_FLAVOR, "postgresql")
          .example("5401")
          .check(Checks.between(1L, 4_294_967_295L)) // server_id is an unsigned 32-bit number
          .doc(
              "Replication server id of the relay's binlog reader (unused on postgresql). It must"
                  + " differ from the server_id of the source and of every replica or other binlog"
                  + " reader: two readers with one id disconnect each other.")
          .build();

  public static final ConfigKey<String> CDC_OFFSETS_TABLE =
      define("cdc.offsets.table", ValueType.STRING)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue("outbox_relay_offsets")
          .check(Checks.identifier())
          .doc(
              "Table in source.database holding the relay's binlog position, written in one"
                  + " transaction once the events before it are acknowledged (see"
                  + " cdc.commit.interval). A relay on another host with the same relay.name"
                  + " continues from it.")
          .build();

  public static final ConfigKey<String> CDC_SCHEMA_HISTORY_TABLE =
      define("cdc.schema.history.table", ValueType.STRING)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue("outbox_relay_schema_history")
          .check(Checks.identifier())
          .doc("Table in source.database holding the schema history of the outbox table.")
          .build();

  public static final ConfigKey<Integer> CDC_BATCH_SIZE =
      define("cdc.batch.size", ValueType.INT)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(1024)
          .check(Checks.between(1, 65536))
          .doc(
              "Most change events handed to the publisher at once; they are published in order"
                  + " and acknowledged before the next batch. Debezium's queue holds four batches"
                  + " in memory.")
          .build();

  public static final ConfigKey<Duration> CDC_COMMIT_INTERVAL =
      define("cdc.commit.interval", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofMillis(100))
          .check(Checks.between(Duration.ZERO, Duration.ofHours(1)))
          .doc(
              "The position is committed after a batch once cdc.batch.size events were"
                  + " acknowledged since the last commit or this much time has passed, so small"
                  + " batches at low rates share one commit. A crash re-publishes those events and the"
                  + " batch being sent (about two batches at most); a graceful stop always commits."
                  + " 0ms commits after every batch.")
          .build();

  public static final ConfigKey<Duration> CDC_HEARTBEAT_INTERVAL =
      define("cdc.heartbeat.interval", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofSeconds(10))
          .check(Checks.between(Duration.ofMillis(100), Duration.ofDays(1)))
          .doc(
              "How often the position advances while the outbox table is quiet but the binlog is"
                  + " not, so a restart does not re-read (or find purged) a long stretch of"
                  + " binlog.")
          .build();

  public static final ConfigKey<PoisonAction> CDC_POISON_ACTION =
      define("cdc.poison.action", ValueType.oneOf(PoisonAction.class))
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(PoisonAction.FAIL)
          .doc(
              "What to do with an event retrying cannot publish (too large, illegal topic, not"
                  + " authorised, a NULL payload): fail stops the relay with exit code 1 at the position before"
                  + " it; skip logs its id and reason at ERROR, counts it and goes on.")
          .build();

  public static final ConfigKey<FirstStartAction> CDC_FIRST_START =
      define("cdc.first.start", ValueType.oneOf(FirstStartAction.class))
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(FirstStartAction.PUBLISH)
          .doc(
              "What the first start of a relay.name (no stored position) does with the rows"
                  + " already in the outbox table (with a status column, those not PUBLISHED, DEAD"
                  + " or SKIPPED): publish takes a consistent snapshot of the table without"
                  + " locking it, publishes its rows in id order and streams from the binlog"
                  + " position of that snapshot; skip publishes none of them (for a table"
                  + " published elsewhere) and streams from that position. On postgresql the"
                  + " snapshot is the one the relay's new replication slot exports, and the slot"
                  + " streams from its consistent point. After 'outbox-relay handoff --to cdc'"
                  + " the first start publishes the rows polling left unpublished whatever this"
                  + " says.")
          .build();

  public static final ConfigKey<Duration> CDC_RETRY_BACKOFF_INITIAL =
      define("cdc.retry.backoff.initial", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofMillis(200))
          .check(Checks.between(Duration.ofMillis(1), Duration.ofHours(1)))
          .doc(
              "First pause before re-sending after a transient Kafka failure. Pauses grow"
                  + " exponentially with jitter; the relay retries until it succeeds or is"
                  + " stopped.")
          .build();

  public static final ConfigKey<Duration> CDC_RETRY_BACKOFF_MAX =
      define("cdc.retry.backoff.max", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofSeconds(30))
          .check(Checks.between(Duration.ofMillis(1), Duration.ofHours(1)))
          .doc(
              "Longest pause between re-sends after transient Kafka failures while Kafka"
                  + " answers. When it does not answer at all, the relay re-sends as soon as it"
                  + " answers again (it asks every second), whatever this says.")
          .build();

  static final CrossCheck CDC_BACKOFF_ORDER =
      CrossCheck.notAbove(CDC_RETRY_BACKOFF_INITIAL, CDC_RETRY_BACKOFF_MAX);

  public static final ConfigKey<Duration> CDC_STARTUP_TIMEOUT =
      define("cdc.startup.timeout", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofMinutes(2))
          .check(Checks.between(Duration.ofSeconds(1), Duration.ofDays(1)))
          .doc(
              "How long the relay waits for the binlog reader to connect before it exits with"
                  + " code 1.")
          .build();

  public static final ConfigKey<Boolean> CDC_REQUIRE_DURABLE_BINLOG =
      define("cdc.require.durable.binlog", ValueType.BOOLEAN)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(true)
          .doc(
              "Refuse to start unless the source has sync_binlog=1 and"
                  + " innodb_flush_log_at_trx_commit=1; without them a crash of the database"
                  + " server can drop committed events from the binlog. false turns this into a"
                  + " warning.")
          .build();

  public static final ConfigKey<Boolean> CDC_SLOT_FAILOVER =
      define("cdc.slot.failover", ValueType.BOOLEAN)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(true)
          .doc(
              "PostgreSQL 17 and later: the relay's replication slot is a failover slot"
                  + " (failover=true, set at every start when it is not), so that a standby with"
                  + " sync_replication_slots=on keeps a copy and the relay continues there after"
                  + " a promotion; list that standby's physical slot in synchronized_standby_slots"
                  + " on the primary. false leaves the slot as it is. Ignored on MariaDB and"
                  + " before PostgreSQL 17, where a slot exists on the primary only.")
          .build();

  public static final ConfigKey<String> CDC_LEADER_TABLE =
      define("cdc.leader.table", ValueType.STRING)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue("outbox_relay_leases")
          .check(Checks.identifier())
          .doc(
              "Table in source.database holding one leadership row per outbox table: the relay"
                  + " that holds leadership publishes, every other relay on the same table (any"
                  + " relay.name) waits as a standby. The relay creates it when missing.")
          .build();

  public static final ConfigKey<Duration> CDC_LEADER_LEASE =
      define("cdc.leader.lease", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofSeconds(6))
          .check(Checks.between(Duration.ofSeconds(1), Duration.ofHours(1)))
          .doc(
              "How long leadership lasts after each renewal, by the database clock: a standby"
                  + " takes over this long after the leader's last renewal (kill -9, network"
                  + " cut). The leader stops publishing once half a renewal interval short of it"
                  + " without a renewal. At least three times cdc.leader.renew.interval.")
          .build();

  public static final ConfigKey<Duration> CDC_LEADER_RENEW_INTERVAL =
      define("cdc.leader.renew.interval", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofSeconds(2))
          .check(Checks.between(Duration.ofMillis(100), Duration.ofMinutes(20)))
          .doc(
              "How often the leader renews its leadership, and the longest a standby waits"
                  + " between looks at the leadership row.")
          .build();

  /** A leader stops half a renewal interval before its lease ends: one late renewal must not. */
  static final CrossCheck LEADER_RENEWS_THRICE_PER_LEASE =
      CrossCheck.of(
          v ->
              v.get(CDC_LEADER_RENEW_INTERVAL).multipliedBy(3).compareTo(v.get(CDC_LEADER_LEASE))
                      <= 0
                  ? null
                  : v.setting(CDC_LEADER_RENEW_INTERVAL)
                      + " is more than a third of "
                      + v.setting(CDC_LEADER_LEASE)
                      + ": a single late renewal would stop the leader; lower the interval or"
                      + " raise the lease",
          CDC_LEADER_LEASE,
          CDC_LEADER_RENEW_INTERVAL);

  public static final ConfigKey<Duration> CDC_RETENTION =
      define("cdc.retention", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ZERO)
          .check(Checks.between(Duration.ZERO, Duration.ofDays(3650)))
          .doc(
              "Delete outbox rows created longer ago than this (database clock) once they are"
                  + " certainly published: seen in a consistent snapshot whose binlog position (WAL"
                  + " position on PostgreSQL) the committed position has reached. Only the leader deletes, oldest id first, in"
                  + " small batches. 0ms keeps every row. Needs DELETE on the outbox table.")
          .build();

  /** Retention in CDC mode needs a consistent snapshot with its binlog position. */
  static final CrossCheck CDC_RETENTION_NEEDS_MARIADB =
      CrossCheck.of(
          v ->
              !v.get(SOURCE_FLAVOR).readsBinlog()
                      || v.get(SOURCE_FLAVOR).snapshotsAtBinlogPosition()
                      || v.get(CDC_RETENTION).isZero()
                  ? null
                  : CDC_RETENTION.name()
                      + " needs MariaDB (a consistent snapshot with its binlog position); MySQL"
                      + " has none: set "
                      + CDC_RETENTION.name()
                      + "=0ms",
          SOURCE_FLAVOR,
          CDC_RETENTION);

  public static final ConfigKey<Integer> CDC_RETENTION_BATCH_SIZE =
      define("cdc.retention.batch.size", ValueType.INT)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(1000)
          .check(Checks.between(1, 100_000))
          .doc("Rows one retention DELETE removes at most, each its own short transaction.")
          .build();

  public static final ConfigKey<Duration> CDC_RETENTION_INTERVAL =
      define("cdc.retention.interval", ValueType.DURATION_TYPE)
          .group(Group.CDC)
          .usedIn(RelayMode.CDC)
          .defaultValue(Duration.ofMinutes(1))
          .check(Checks.between(Duration.ofSeconds(1), Duration.ofDays(1)))
          .doc("How often the deletion of old published rows runs.")
          .build();

  public static final ConfigKey<Integer> POLLING_WORKERS =
      define("polling.workers", ValueType.INT)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(4)
          .check(Checks.between(1, 256))
          .doc(
              "Worker threads in this process. Each claims, publishes and finishes its own"
                  + " batches on its own connection; any number of processes may share one table.")
          .build();

  public static final ConfigKey<Integer> POLLING_BATCH_SIZE =
      define("polling.batch.size", ValueType.INT)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(500)
          .check(Checks.between(1, 10_000))
          .doc("Most events one claim takes. A full batch makes the worker claim again at once.")
          .build();

  public static final ConfigKey<Duration> POLLING_INTERVAL =
      define("polling.interval", ValueType.DURATION_TYPE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Duration.ofMillis(100))
          .check(Checks.between(Duration.ofMillis(1), Duration.ofHours(1)))
          .doc(
              "How long an idle worker waits between claims (with jitter): after a claim that"
                  + " found nothing it waits an eighth of this, doubling to the whole interval"
                  + " from the fourth empty claim in a row; after a claim that found events it"
                  + " claims again at once. Sets the load an idle relay puts on the database.")
          .build();

  public static final ConfigKey<Duration> POLLING_LEASE =
      define("polling.lease", ValueType.DURATION_TYPE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Duration.ofSeconds(8))
          .check(Checks.between(Duration.ofSeconds(2), Duration.ofDays(1)))
          .doc(
              "How long a claim is owned from its last renewal. While a batch waits for Kafka the"
                  + " relay renews its lease every quarter of this; when the lease expires (the"
                  + " process died, froze, or lost the database for that long) another worker"
                  + " takes the events over at its next check, within about a second. So this"
                  + " bounds how long a dead process's events wait; it need not cover the"
                  + " producer's timeouts. Renewing costs one UPDATE of a batch's rows per quarter"
                  + " lease, and only for batches that take longer than that to publish.")
          .build();

  public static final ConfigKey<Ordering> POLLING_ORDERING =
      define("polling.ordering", ValueType.oneOf(Ordering.class))
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Ordering.AGGREGATE)
          .doc(
              "aggregate: an event is published only after every earlier event of its aggregate"
                  + " (by id) is published, so each aggregate's events reach Kafka in order while"
                  + " different aggregates go in parallel; none: no ordering, full parallelism.")
          .build();

  public static final ConfigKey<Boolean> POLLING_DEAD_BLOCKS_AGGREGATE =
      define("polling.dead.blocks.aggregate", ValueType.BOOLEAN)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(true)
          .doc(
              "With ordering=aggregate, whether a DEAD event holds back the later events of its"
                  + " aggregate until an operator requeues or removes it. false lets them flow"
                  + " past it.")
          .build();

  public static final ConfigKey<Integer> POLLING_CLAIM_WINDOW =
      define("polling.claim.window", ValueType.INT)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(5000)
          .check(Checks.between(1, 1_000_000))
          .doc(
              "How many pending rows one claim looks at, in id order, to find events it may"
                  + " publish; bounds the work of a claim when many events wait behind others of"
                  + " their aggregate. Each worker moves its window on through the pending rows"
                  + " and starts again from the oldest at the end, so events that cannot go yet"
                  + " never hold back the rest. Must be at least polling.batch.size.")
          .build();

  static final CrossCheck CLAIM_WINDOW_HOLDS_A_BATCH =
      CrossCheck.of(
          v ->
              v.get(POLLING_CLAIM_WINDOW) >= v.get(POLLING_BATCH_SIZE)
                  ? null
                  : v.setting(POLLING_CLAIM_WINDOW)
                      + " is smaller than "
                      + v.setting(POLLING_BATCH_SIZE)
                      + ": a claim could never fill its batch; raise the window",
          POLLING_CLAIM_WINDOW,
          POLLING_BATCH_SIZE);

  public static final ConfigKey<Integer> POLLING_MAX_ATTEMPTS =
      define("polling.max.attempts", ValueType.INT)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(5)
          .check(Checks.between(1, 1000))
          .doc(
              "Claims an event may have. After a failed publish on the last one (or a lease that"
                  + " expired on it) the event goes DEAD with the reason in last_error. Attempts are"
                  + " counted when claimed, so an event whose worker keeps dying also ends; a"
                  + " claim whose publish failed because Kafka was unreachable is not counted.")
          .build();

  public static final ConfigKey<Duration> POLLING_BACKOFF_INITIAL =
      define("polling.retry.backoff.initial", ValueType.DURATION_TYPE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Duration.ofSeconds(1))
          .check(Checks.between(Duration.ofMillis(1), Duration.ofDays(1)))
          .doc(
              "Pause before an event is retried after its first failed publish; later pauses"
                  + " grow by polling.retry.backoff.multiplier up to polling.retry.backoff.max,"
                  + " with ±"
                  + Math.round(Backoff.JITTER * 100)
                  + "% jitter, measured by the database clock.")
          .build();

  public static final ConfigKey<Double> POLLING_BACKOFF_MULTIPLIER =
      define("polling.retry.backoff.multiplier", ValueType.DOUBLE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(5.0)
          .check(Checks.between(1.0, 100.0))
          .doc("Growth of the retry pause per failed attempt.")
          .build();

  public static final ConfigKey<Duration> POLLING_BACKOFF_MAX =
      define("polling.retry.backoff.max", ValueType.DURATION_TYPE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Duration.ofMinutes(2))
          .check(Checks.between(Duration.ofMillis(1), Duration.ofDays(1)))
          .doc("Longest pause between retries of one event.")
          .build();

  // No check relates polling.lease to the producer's timeouts: the lease is renewed while a batch
  // waits for Kafka, so it need not cover the longest publish (see LeaseKeeper).
  static final CrossCheck POLLING_BACKOFF_ORDER =
      CrossCheck.notAbove(POLLING_BACKOFF_INITIAL, POLLING_BACKOFF_MAX);

  public static final ConfigKey<Duration> POLLING_RETENTION =
      define("polling.retention", ValueType.DURATION_TYPE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Duration.ZERO)
          .check(Checks.between(Duration.ZERO, Duration.ofDays(3650)))
          .doc(
              "Delete PUBLISHED rows published longer ago than this (database clock), oldest id"
                  + " first, in small batches. 0ms keeps them forever. DEAD and unpublished rows"
                  + " are never deleted.")
          .build();

  public static final ConfigKey<Integer> POLLING_RETENTION_BATCH_SIZE =
      define("polling.retention.batch.size", ValueType.INT)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(1000)
          .check(Checks.between(1, 100_000))
          .doc(
              "PUBLISHED rows one retention step looks at (and deletes at most), each step its own"
                  + " short transaction.")
          .build();

  public static final ConfigKey<Duration> POLLING_RETENTION_INTERVAL =
      define("polling.retention.interval", ValueType.DURATION_TYPE)
          .group(Group.POLLING)
          .usedIn(RelayMode.POLLING)
          .defaultValue(Duration.ofMinutes(1))
          .check(Checks.between(Duration.ofSeconds(1), Duration.ofDays(1)))
          .doc("How often the deletion of old PUBLISHED rows runs.")
          .build();

  public static final ConfigKey<Integer> HTTP_PORT =
      define("http.port", ValueType.INT)
          .group(Group.HTTP)
          .defaultText("none (no endpoint)")
          .check(Checks.between(1, 65535))
          .doc(
              "Port of the read-only HTTP endpoint: GET /metrics (Prometheus text format),"
                  + " /health/live and /health/ready. Without it the relay serves nothing.")
          .build();

  public static final ConfigKey<String> HTTP_HOST =
      define("http.host", ValueType.STRING)
          .group(Group.HTTP)
          .defaultValue("127.0.0.1")
          .check(Checks.notBlank())
          .doc(
              "Address the HTTP endpoint listens on; 0.0.0.0 for every interface (in a container,"
                  + " for Prometheus and Kubernetes probes). It has no authentication: keep it on"
                  + " a network only the monitoring can reach.")
          .build();

  /** Every declared key, in documentation order. */
  public static final List<ConfigKey<?>> ALL =
      concat(
          MODE,
          RELAY_NAME,
          STATS_INTERVAL,
          SHUTDOWN_TIMEOUT,
          RESOLVE_TIMEOUT,
          SOURCE_FLAVOR,
          SOURCE_HOST,
          SOURCE_PORT,
          SOURCE_DATABASE,
          SOURCE_USER,
          SOURCE_PASSWORD,
          SOURCE_TABLE,
          SOURCE_CONNECT_TIMEOUT,
          COLUMNS.values(),
          COLUMN_SEQUENCE,
          COLUMN_ADDITIONAL_PLACEMENT,
          TOPIC_TEMPLATE,
          ROUTER_HEADERS,
          VERSION_CHECK,
          VERSION_CHECK_AGGREGATES,
          KAFKA_BOOTSTRAP_SERVERS,
          DELIVERY_GUARANTEE,
          DELIVERY_TRANSACTIONAL_ID,
          DELIVERY_PROGRESS_TOPIC,
          CDC_SERVER_ID,
          CDC_OFFSETS_TABLE,
          CDC_SCHEMA_HISTORY_TABLE,
          CDC_BATCH_SIZE,
          CDC_COMMIT_INTERVAL,
          CDC_HEARTBEAT_INTERVAL,
          CDC_POISON_ACTION,
          CDC_FIRST_START,
          CDC_RETRY_BACKOFF_INITIAL,
          CDC_RETRY_BACKOFF_MAX,
          CDC_STARTUP_TIMEOUT,
          CDC_REQUIRE_DURABLE_BINLOG,
          CDC_SLOT_FAILOVER,
          CDC_LEADER_TABLE,
          CDC_LEADER_LEASE,
          CDC_LEADER_RENEW_INTERVAL,
          CDC_RETENTION,
          CDC_RETENTION_BATCH_SIZE,
          CDC_RETENTION_INTERVAL,
          POLLING_WORKERS,
          POLLING_BATCH_SIZE,
          POLLING_INTERVAL,
          POLLING_LEASE,
          POLLING_ORDERING,
          POLLING_DEAD_BLOCKS_AGGREGATE,
          POLLING_CLAIM_WINDOW,
          POLLING_MAX_ATTEMPTS,
          POLLING_BACKOFF_INITIAL,
          POLLING_BACKOFF_MULTIPLIER,
          POLLING_BACKOFF_MAX,
          POLLING_RETENTION,
          POLLING_RETENTION_BATCH_SIZE,
          POLLING_RETENTION_INTERVAL,
          HTTP_PORT,
          HTTP_HOST);

  /** Every check that relates keys, in the order their problems are listed. */
  static final List<CrossCheck> CROSS_CHECKS =
      List.of(
          COLUMNS_HAVE_ONE_ROLE_EACH,
          PLACEMENTS_AVOID_OWN_HEADERS,
          CLAIM_WINDOW_HOLDS_A_BATCH,
          POLLING_BACKOFF_ORDER,
          EXACTLY_ONCE_NEEDS_CDC,
          CDC_RETENTION_NEEDS_MARIADB,
          CDC_BACKOFF_ORDER,
          LEADER_RENEWS_THRICE_PER_LEASE);

  /** The keys in order, a collection standing for its elements in place. */
  private static List<ConfigKey<?>> concat(Object... keysOrCollections) {
    List<ConfigKey<?>> all = new ArrayList<>();
    for (Object o : keysOrCollections) {
      if (o instanceof Collection<?> keys) {
        keys.forEach(k -> all.add((ConfigKey<?>) k));
      } else {
        all.add((ConfigKey<?>) o);
      }
    }
    return List.copyOf(all);
  }

  /**
   * Looks a key up by name.
   *
   * @param name the key name
   * @return the key, or {@code null} when no key has this name
   */
  public static ConfigKey<?> byName(String name) {
    for (ConfigKey<?> key : ALL) {
      if (key.name().equals(name)) {
        return key;
      }
    }
    return null;
  }
}
