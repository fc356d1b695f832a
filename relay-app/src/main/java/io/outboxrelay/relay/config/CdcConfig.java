package io.outboxrelay.relay.config;

import java.time.Duration;
import java.util.Map;

/**
 * CDC mode settings. Immutable.
 *
 * @param serverId the binlog reader's replication server id
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
 * @param leaderTable table holding the leases, one per outbox table
 * @param leaderLease how long a lease lasts after each renewal, by the database clock
 * @param leaderRenewInterval how often the leader renews, and a standby looks at the lease
 * @param debeziumOverrides {@code debezium.*} entries without the prefix, unmodifiable
 * @param retention age after which certainly published rows are deleted, or zero for never
 * @param retentionBatchSize rows deleted per statement
 * @param retentionInterval how often the deletion runs
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
    String leaderTable,
    Duration leaderLease,
    Duration leaderRenewInterval,
    Map<String, String> debeziumOverrides,
    Duration retention,
    int retentionBatchSize,
    Duration retentionInterval) {

  /** Freezes the overrides. */
  public CdcConfig {
    debeziumOverrides = Map.copyOf(debeziumOverrides);
  }
}
