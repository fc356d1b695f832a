package io.outboxrelay.relay.config;

import java.time.Duration;

/**
 * Polling mode settings. Immutable.
 *
 * @param workers worker threads in this process
 * @param batchSize most events one claim takes
 * @param interval how long an idle worker waits before claiming again
 * @param lease how long a claim is owned before another worker may take it over
 * @param ordering the ordering promise
 * @param deadBlocksAggregate whether a DEAD event holds back its aggregate's later events
 * @param claimWindow how many pending rows (in id order, after the worker's cursor) one claim
 *     considers
 * @param maxAttempts claims after which a failing event goes DEAD
 * @param backoffInitial pause after the first failure
 * @param backoffMultiplier growth of the pause per failure
 * @param backoffMax longest pause
 * @param retention age after which PUBLISHED rows are deleted, or zero for never
 * @param retentionBatchSize rows deleted per statement
 * @param retentionInterval how often the deletion runs
 */
public record PollingConfig(
    int workers,
    int batchSize,
    Duration interval,
    Duration lease,
    Ordering ordering,
    boolean deadBlocksAggregate,
    int claimWindow,
    int maxAttempts,
    Duration backoffInitial,
    double backoffMultiplier,
    Duration backoffMax,
    Duration retention,
    int retentionBatchSize,
    Duration retentionInterval) {

  /**
   * The most of a lease a worker keeps back for finishing its batch (one short transaction): the
   * margin is a renewal period (a quarter of the lease), at most this.
   */
  public static final Duration FINISH_MARGIN_MAX = Duration.ofSeconds(5);

  /** Reads the {@code polling.*} keys; {@code null} outside polling mode. */
  static PollingConfig from(ConfigValues v) {
    if (v.mode() != RelayMode.POLLING) {
      return null;
    }
    return new PollingConfig(
        v.get(RelayConfigKeys.POLLING_WORKERS),
        v.get(RelayConfigKeys.POLLING_BATCH_SIZE),
        v.get(RelayConfigKeys.POLLING_INTERVAL),
        v.get(RelayConfigKeys.POLLING_LEASE),
        v.get(RelayConfigKeys.POLLING_ORDERING),
        v.get(RelayConfigKeys.POLLING_DEAD_BLOCKS_AGGREGATE),
        v.get(RelayConfigKeys.POLLING_CLAIM_WINDOW),
        v.get(RelayConfigKeys.POLLING_MAX_ATTEMPTS),
        v.get(RelayConfigKeys.POLLING_BACKOFF_INITIAL),
        v.get(RelayConfigKeys.POLLING_BACKOFF_MULTIPLIER),
        v.get(RelayConfigKeys.POLLING_BACKOFF_MAX),
        v.get(RelayConfigKeys.POLLING_RETENTION),
        v.get(RelayConfigKeys.POLLING_RETENTION_BATCH_SIZE),
        v.get(RelayConfigKeys.POLLING_RETENTION_INTERVAL));
  }
}
