package io.outboxrelay.relay.config;

import java.time.Duration;
import java.util.Map;

/**
 * CDC mode settings. Immutable.
 *
 * @param serverId the binlog reader's replication server id; 0 on PostgreSQL, which has none
 * @param offsetsTable table holding the binlog position
 * @param schemaHistoryTable table holding the schema history
 * @param batchSize most events per published batch
 * @param commitInterval the longest time acknowledged events wait for their position commit
 * @param heartbeatInterval how often the position advances on a quiet outbox
 * @param poisonAction what to do with an event retrying cannot publish
 * @param retryBackoffInitial first pause after a transient Kafka failure
 * @param retryBackoffMax longest pause after transient Kafka failures
 * @param startupTimeout how long to wait for streaming to start
 * @param requireDurableBinlog whether sync_binlog=1 and innodb_flush_log_at_trx_commit=1 are
 *     required
 * @param slotFailover whether the relay makes its PostgreSQL replication slot a failover slot
 *     (PostgreSQL 17 and later)
 * @param leaderTable the leases table, holding one leadership row per outbox table
 * @param leaderLease how long leadership lasts after each renewal, by the database clock ({@code
 *     cdc.leader.lease})
 * @param leaderRenewInterval how often the leader renews, and a standby looks at the leadership row
 * @param debeziumOverrides {@code debezium.*} entries without the prefix, unmodifiable
 * @param retention age after which certainly published rows are deleted, or zero for never
 * @param retentionBatchSize rows deleted per statement
 * @param retentionInterval how often the deletion runs
 * @param firstStart what the first start does with the rows already in the table
 */
public record CdcConfig(
    long serverId,
    String offsetsTable,
    String schemaHistoryTable,
    int batchSize,
    Duration commitInterval,
    Duration heartbeatInterval,
    PoisonAction poisonAction,
    Duration retryBackoffInitial,
    Duration retryBackoffMax,
    Duration startupTimeout,
    boolean requireDurableBinlog,
    boolean slotFailover,
    String leaderTable,
    Duration leaderLease,
    Duration leaderRenewInterval,
    Map<String, String> debeziumOverrides,
    Duration retention,
    int retentionBatchSize,
    Duration retentionInterval,
    FirstStartAction firstStart) {

  /** Freezes the overrides. */
  public CdcConfig {
    debeziumOverrides = Map.copyOf(debeziumOverrides);
  }

  /** Reads the {@code cdc.*} keys; {@code null} outside CDC mode. */
  static CdcConfig from(ConfigValues v, Map<String, String> debeziumOverrides) {
    if (v.mode() != RelayMode.CDC) {
      return null;
    }
    return new CdcConfig(
        v.get(RelayConfigKeys.CDC_SERVER_ID) == null ? 0L : v.get(RelayConfigKeys.CDC_SERVER_ID),
        v.get(RelayConfigKeys.CDC_OFFSETS_TABLE),
        v.get(RelayConfigKeys.CDC_SCHEMA_HISTORY_TABLE),
        v.get(RelayConfigKeys.CDC_BATCH_SIZE),
        v.get(RelayConfigKeys.CDC_COMMIT_INTERVAL),
        v.get(RelayConfigKeys.CDC_HEARTBEAT_INTERVAL),
        v.get(RelayConfigKeys.CDC_POISON_ACTION),
        v.get(RelayConfigKeys.CDC_RETRY_BACKOFF_INITIAL),
        v.get(RelayConfigKeys.CDC_RETRY_BACKOFF_MAX),
        v.get(RelayConfigKeys.CDC_STARTUP_TIMEOUT),
        v.get(RelayConfigKeys.CDC_REQUIRE_DURABLE_BINLOG),
        v.get(RelayConfigKeys.CDC_SLOT_FAILOVER),
        v.get(RelayConfigKeys.CDC_LEADER_TABLE),
        v.get(RelayConfigKeys.CDC_LEADER_LEASE),
        v.get(RelayConfigKeys.CDC_LEADER_RENEW_INTERVAL),
        debeziumOverrides,
        v.get(RelayConfigKeys.CDC_RETENTION),
        v.get(RelayConfigKeys.CDC_RETENTION_BATCH_SIZE),
        v.get(RelayConfigKeys.CDC_RETENTION_INTERVAL),
        v.get(RelayConfigKeys.CDC_FIRST_START));
  }
}
