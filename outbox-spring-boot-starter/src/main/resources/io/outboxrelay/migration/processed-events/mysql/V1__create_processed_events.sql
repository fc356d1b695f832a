-- The idempotent consumer's tables (consumer-idempotency; MariaDB 10.6+ and MySQL 8.0+): the statements of
-- config/mysql/processed-events.sql, with IF NOT EXISTS, so that tables the application created
-- before are kept as they are; the later versions add the columns they lack. Run by the Spring
-- Boot starter when outbox.migrations.enabled=true, with its own history table
-- (processed_events_schema_history).

-- One row per event a consumer group has processed (or skipped as stale). payload_hash is written
-- only by processors with the conflict check on (NULL otherwise); with the check off the column is
-- not used and may be absent (migrations/processed-events-001-add-payload-hash.sql adds it).
-- Keep rows longer than the longest redelivery window (the oldest event the relay or Kafka can
-- still deliver again); the consumer's retention job deletes older ones by processed_at.
CREATE TABLE IF NOT EXISTS processed_events (
  consumer_group VARCHAR(255) NOT NULL,
  event_id       VARCHAR(255) NOT NULL,                            -- the Kafka header "id"
  processed_at   TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), -- database clock
  payload_hash   BINARY(32)   NULL,                                -- SHA-256 of the payload, for the optional conflict check
  PRIMARY KEY (consumer_group, event_id),
  KEY ix_processed_events_processed_at (consumer_group, processed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Only for consumers that turn on the per-aggregate version check: the last version applied per
-- aggregate. Rows are never deleted by the consumer (one per aggregate, not per event).
CREATE TABLE IF NOT EXISTS processed_aggregate_versions (
  consumer_group VARCHAR(255) NOT NULL,
  aggregate_type VARCHAR(255) NOT NULL,
  aggregate_id   VARCHAR(255) NOT NULL,
  last_version   BIGINT       NULL,                                -- NULL only while the first event of the aggregate is in flight
  updated_at     TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (consumer_group, aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
