-- Polling mode's columns and indexes for Debezium's outbox table on PostgreSQL 12+ (id uuid,
-- aggregatetype, aggregateid, type, payload jsonb, optionally timestamp and tracingspancontext).
-- Nothing Debezium reads changes. Debezium's id is the event id, so polling orders rows by a
-- column of its own, relay_seq (source.column.sequence=relay_seq). Rows already in the table are
-- numbered in no particular order and are PENDING: mark those Debezium published (the last
-- statement, commented out) before a polling relay starts. docs/migrating-from-debezium.md,
-- "Table layout".
ALTER TABLE outbox
  ADD COLUMN relay_seq        bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  ADD COLUMN created_at       timestamptz  NOT NULL DEFAULT clock_timestamp(),
  ADD COLUMN status           varchar(16)  NOT NULL DEFAULT 'PENDING'
    CHECK (status IN ('PENDING', 'PROCESSING', 'PUBLISHED', 'DEAD', 'SKIPPED')),
  ADD COLUMN attempts         integer      NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at  timestamptz  NOT NULL DEFAULT clock_timestamp(),
  ADD COLUMN claim_token      uuid         NULL,
  ADD COLUMN processing_until timestamptz  NULL,
  ADD COLUMN published_at     timestamptz  NULL,
  ADD COLUMN last_error       varchar(1000) NULL;
CREATE INDEX ix_outbox_status_seq ON outbox (status, relay_seq);
CREATE INDEX ix_outbox_aggregate ON outbox (aggregatetype, aggregateid, status, relay_seq);
-- UPDATE outbox SET status = 'PUBLISHED', published_at = clock_timestamp() WHERE status = 'PENDING';
