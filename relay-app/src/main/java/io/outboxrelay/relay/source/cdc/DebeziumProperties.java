package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.DebeziumManaged;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.IdleTransactionBound;
import io.outboxrelay.relay.source.SqlDialect;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * Builds the embedded engine's configuration from the relay's. Stateless.
 *
 * <p>Choices that matter, and why:
 *
 * <p>The settings the relay derives from its own keys are the {@link DebeziumManaged} ones; a
 * {@code debezium.*} override of them is refused, any other setting here may be overridden.
 *
 * <ul>
 *   <li>{@code connect.keep.alive.interval.ms} of {@link #KEEPALIVE}: see there.
 *   <li>{@code snapshot.mode=no_data}: the engine takes no snapshot of rows; a first start (no
 *       stored position) is the relay's own ({@link FirstStart}), which stores the position the
 *       engine then starts from with {@code snapshot.mode=recovery}. {@code
 *       snapshot.locking.mode=none}: reading that position needs no global read lock (the default
 *       takes {@code FLUSH TABLES WITH READ LOCK}, which blocks every writer of the database while
 *       it lasts).
 *   <li>Offsets and schema history in the source database (Debezium's JDBC stores). A position is
 *       committed only after Kafka acknowledged its events, once {@code cdc.batch.size} events are
 *       acknowledged or {@code cdc.commit.interval} has passed ({@link PositionCommitPolicy}, set
 *       in {@link EngineRun}).
 *   <li>{@code skipped.operations=u,d,t}: updates and deletes of outbox rows publish nothing.
 *   <li>Events are taken from Debezium's queue as soon as they are enqueued ({@link QueueTap}),
 *       instead of after {@code poll.interval.ms} (500 ms by default) or a full batch.
 * </ul>
 */
final class DebeziumProperties {

  /** Offsets table DDL; {@code %s} is the table name. Debezium creates it when missing. */
  static final String OFFSETS_DDL =
      "CREATE TABLE %s (id VARCHAR(36) NOT NULL, offset_key VARCHAR(1255), offset_val"
          + " VARCHAR(1255), record_insert_ts TIMESTAMP NOT NULL, record_insert_seq INTEGER NOT"
          + " NULL, PRIMARY KEY (id))";

  /**
   * Schema history DDL; Debezium writes history in chunks of 65,000 characters, more than a utf8mb4
   * VARCHAR holds, so the column is MEDIUMTEXT.
   */
  static final String HISTORY_DDL =
      "CREATE TABLE %s (id VARCHAR(36) NOT NULL, history_data MEDIUMTEXT, history_data_seq"
          + " INTEGER, record_insert_ts TIMESTAMP NOT NULL, record_insert_seq INTEGER NOT NULL,"
          + " PRIMARY KEY (id, history_data_seq))";

  /**
   * How often the binlog client checks its connection, and how long it may stay silent before the
   * client counts it as lost and reconnects (Debezium's {@code connect.keep.alive.interval.ms}).
   * Debezium also asks the server for a heartbeat after 0.8 of this without events ({@code
   * master_heartbeat_period}), so a healthy idle connection is never silent that long.
   *
   * <p>The client's keepalive thread is what brings the stream back after any loss. A server that
   * was killed or restarted closes the socket and the reader simply ends; a frozen server or a dead
   * network path sends nothing. Either way nothing arrives, and once nothing has for this long the
   * keepalive thread closes the socket and reconnects from the GTID set (or position) of the last
   * complete transaction, retrying every interval while the server refuses. The task and its
   * position stay as they are. With Debezium's one minute, a killed database meant up to two
   * minutes without publishing; with three seconds the first attempt comes 3-6 s after the last
   * event received, and the stream is back within 3 s of the server accepting connections.
   *
   * <p>The price: the client cannot tell a silent server from its own reader waiting on a full
   * Debezium queue (the relay stuck on Kafka for longer than this). It then reconnects too, after
   * the queue drains; the rows of a transaction that were queued before the wait are read again, so
   * they are published twice (never lost, never out of order). Transactions of one event never
   * produce such duplicates.
   */
  static final Duration KEEPALIVE = Duration.ofSeconds(3);

  /**
   * The position store's pause between reconnection attempts, and how many it makes before a commit
   * fails (the next batch commits again; nothing is lost): about ten seconds of trying.
   */
  static final Duration POSITION_STORE_RETRY_DELAY = Duration.ofSeconds(1);

  static final int POSITION_STORE_ATTEMPTS = 10;

  /**
   * Longest a position store statement may wait for the database: a frozen server or a dead path
   * would otherwise hold a commit (and with it the publishing thread) until TCP gives up.
   */
  static final Duration POSITION_STORE_SOCKET_TIMEOUT = Duration.ofSeconds(30);

  private DebeziumProperties() {}

  /** The relay's connector for each of Debezium's connector types. */
  private static final Map<String, String> CONNECTORS =
      Map.of(
          "mariadb", OutboxMariaDbConnector.class.getName(),
          "mysql", OutboxMySqlConnector.class.getName(),
          "postgres", OutboxPostgresConnector.class.getName());

  static String connectorClass(SqlDialect dialect) {
    return CONNECTORS.get(dialect.connectorType());
  }

  /** The keepalive interval in effect: {@link #KEEPALIVE} unless a {@code debezium.} override. */
  static Duration keepalive(Properties built) {
    String value = built.getProperty("connect.keep.alive.interval.ms");
    if (value == null) {
      return KEEPALIVE; // PostgreSQL: no binlog client
    }
    try {
      return Duration.ofMillis(Long.parseLong(value.trim()));
    } catch (NumberFormatException e) {
      return KEEPALIVE; // Debezium refuses the value at start and says why
    }
  }

  static Properties build(RelayConfig config) {
    SourceConfig source = config.source();
    CdcConfig cdc = config.cdc();
    // The position store's transaction locks the leadership row last (its fence): a leader frozen
    // before its commit would hold a standby's takeover back until it woke, but for the bound.
    SqlDialect dialect = SqlDialect.of(source.flavor());
    String jdbcUrl =
        source.jdbcUrl()
            + dialect.socketTimeoutUrlParameter(POSITION_STORE_SOCKET_TIMEOUT)
            + IdleTransactionBound.urlParameter(dialect, cdc.leaderLease());
    Properties p = new Properties();
    for (DebeziumManaged setting : DebeziumManaged.values()) {
      String value = managed(setting, config, jdbcUrl);
      if (value != null) {
        p.setProperty(setting.key(), value);
      }
    }
    p.setProperty("tasks.max", "1");

    // Only the columns the router needs: Debezium converts, validates and (for TIMESTAMP(6))
    // formats every captured column of every row, and the polling bookkeeping columns are of no
    // use here. The row's source timestamp stands in for created_at. Debezium matches the list
    // without regard to case.
    p.setProperty(
        "column.include.list",
        (dialect.hasBinlog()
                ? java.util.regex.Pattern.quote(source.database() + "." + source.table() + ".")
                : PostgresReplication.anySchema(source.table() + "."))
            + "("
            + String.join("|", ChangeEventMapper.capturedColumns(source))
            + ")");
    p.setProperty("connect.timeout.ms", String.valueOf(source.connectTimeout().toMillis()));
    p.setProperty("connect.keep.alive", "true");
    p.setProperty("connect.keep.alive.interval.ms", String.valueOf(KEEPALIVE.toMillis()));

    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("snapshot.locking.mode", "none");
    p.setProperty("skipped.operations", "u,d,t");
    p.setProperty("include.schema.changes", "false");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("provide.transaction.metadata", "false");
    p.setProperty("extended.headers.enabled", "false");
    // Only the source fields that are read: less validation and garbage per event.
    p.setProperty("sourceinfo.struct.maker", LeanSourceInfoStructMaker.class.getName());
    // Debezium's default topic names, computed once per table instead of once per event.
    p.setProperty("topic.naming.strategy", CachedTopicNamingStrategy.class.getName());

    // Four batches: whatever waits in the queue is copied by every young collection while it waits
    // (two batches halved a drain's GC time), but with two the binlog reader, blocked on a full
    // queue through a Kafka outage, was dropped and reconnected mid-transaction and published a
    // few rows twice in every 20-second broker outage under load; with four, none.
    p.setProperty("max.queue.size", String.valueOf(cdc.batchSize() * 4));
    // The relay takes events as soon as they are queued (QueueTap); Debezium's interval only
    // paces a binlog reader blocked on a full queue, and is the fallback poll wait.
    p.setProperty("poll.interval.ms", "5");
    p.setProperty("record.processing.threads", "1");

    p.setProperty("offset.storage.jdbc.table.ddl", OFFSETS_DDL);
    p.setProperty(
        "offset.storage.jdbc.connection.wait.retry.delay.ms",
        String.valueOf(POSITION_STORE_RETRY_DELAY.toMillis()));
    p.setProperty(
        "offset.storage.jdbc.connection.retry.max.attempts",
        String.valueOf(POSITION_STORE_ATTEMPTS));
    p.setProperty("offset.flush.timeout.ms", "30000");

    p.setProperty("schema.history.internal.jdbc.table.ddl", HISTORY_DDL);
    p.setProperty("schema.history.internal.store.only.captured.tables.ddl", "true");
    p.setProperty("schema.history.internal.store.only.captured.databases.ddl", "true");

    if (!dialect.hasBinlog()) {
      PostgresReplication.configure(p, config);
    }
    cdc.debeziumOverrides().forEach(p::setProperty);
    return p;
  }

  /**
   * The outbox table as Debezium's table filter names it: {@code database.table} on MariaDB/MySQL;
   * on PostgreSQL {@code schema.table} for any schema ({@link PostgresReplication#anySchema}).
   */
  private static String tablePattern(SourceConfig source) {
    return SqlDialect.of(source.flavor()).hasBinlog()
        ? source.database() + "." + source.table()
        : PostgresReplication.anySchema(source.table());
  }

  /**
   * The value of a setting the relay manages (configuration refuses a {@code debezium.*} override
   * of it), or {@code null} for one given to the engine rather than as a property.
   */
  private static String managed(DebeziumManaged setting, RelayConfig config, String jdbcUrl) {
    SourceConfig source = config.source();
    CdcConfig cdc = config.cdc();
    return switch (setting) {
      case NAME, TOPIC_PREFIX -> config.name();
      case CONNECTOR_CLASS -> connectorClass(SqlDialect.of(source.flavor()));
      case DATABASE_HOSTNAME -> source.host();
      case DATABASE_PORT -> String.valueOf(source.port());
      case DATABASE_USER,
          OFFSET_STORAGE_JDBC_CONNECTION_USER,
          SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_USER ->
          source.user();
      case DATABASE_PASSWORD,
          OFFSET_STORAGE_JDBC_CONNECTION_PASSWORD,
          SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_PASSWORD ->
          source.password().reveal();
      case DATABASE_SERVER_ID -> String.valueOf(cdc.serverId());
      case DATABASE_INCLUDE_LIST -> source.database();
      case TABLE_INCLUDE_LIST -> tablePattern(source);
      case MAX_BATCH_SIZE -> String.valueOf(cdc.batchSize());
      case HEARTBEAT_INTERVAL_MS -> String.valueOf(cdc.heartbeatInterval().toMillis());
      case OFFSET_STORAGE -> "io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore";
      case OFFSET_COMMIT_POLICY -> null; // PositionCommitPolicy, given to the engine by EngineRun
      case OFFSET_FLUSH_INTERVAL_MS -> "0"; // commits follow the policy, never a timer
      case OFFSET_STORAGE_JDBC_CONNECTION_URL, SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_URL ->
          jdbcUrl;
      case OFFSET_STORAGE_JDBC_TABLE_NAME -> cdc.offsetsTable();
      case SCHEMA_HISTORY_INTERNAL -> "io.debezium.storage.jdbc.history.JdbcSchemaHistory";
      case SCHEMA_HISTORY_INTERNAL_JDBC_TABLE_NAME -> cdc.schemaHistoryTable();
    };
  }
}
