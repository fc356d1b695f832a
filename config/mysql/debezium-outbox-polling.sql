-- Polling mode's columns and indexes for Debezium's outbox table (config/examples/debezium-outbox-
-- schema.sql), MariaDB 10.6+ / MySQL 8.0+; CDC mode needs none of this. Nothing Debezium reads
-- changes: its connector and outbox event router keep working on the table during and after it.
-- Debezium's id is the event id (a UUID), so polling orders rows by a column of its own,
-- relay_seq (source.column.sequence=relay_seq). Rows already in the table are numbered in primary
-- key order, not in the order they were written, and are PENDING: mark those Debezium published
-- (the last statement, commented out) before a polling relay starts. It rebuilds the table: pick
-- a quiet period. docs/migrating-from-debezium.md, "Table layout".
ALTER TABLE outbox
  ADD COLUMN relay_seq        BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  ADD COLUMN created_at       TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  ADD COLUMN status           CHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'PENDING',
  ADD COLUMN attempts         INT             NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at  TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  ADD COLUMN claim_token      CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
  ADD COLUMN processing_until TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  ADD COLUMN published_at     TIMESTAMP(6)    NULL,
  ADD COLUMN last_error       VARCHAR(1000)   NULL,
  ADD UNIQUE KEY ux_outbox_relay_seq (relay_seq),
  -- The claim and the head checks name these two indexes in hints: keep their names.
  ADD KEY ix_outbox_events_status_id (status, relay_seq),
  ADD KEY ix_outbox_events_aggregate (aggregatetype, aggregateid, status, relay_seq);
-- UPDATE outbox SET status = 'PUBLISHED', published_at = NOW(6) WHERE status = 'PENDING';
