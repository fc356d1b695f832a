-- For an outbox table created before the bookkeeping columns were fixed-width (MariaDB/MySQL).
-- Makes status, claim_token and processing_until fixed-width and NOT NULL, so that polling's claims
-- and finishes update rows in place (measured about a fifth faster), and drops the index on
-- published_at (retention now walks (status, id)). CDC mode does not use these columns.
--
-- Order: first upgrade every polling-mode relay (this version works with the old and the new
-- columns; older versions write NULLs the new columns refuse), then run these statements. The
-- ALTER rebuilds the table, and the application's inserts wait while it copies: on a large table,
-- run it in a quiet period, or delete old PUBLISHED rows first.
UPDATE outbox_events SET claim_token = '' WHERE claim_token IS NULL;
UPDATE outbox_events SET processing_until = created_at WHERE processing_until IS NULL;
ALTER TABLE outbox_events
  MODIFY status           CHAR(10) CHARACTER SET ascii NOT NULL DEFAULT 'PENDING',
  MODIFY claim_token      CHAR(36) CHARACTER SET ascii NOT NULL DEFAULT '',
  MODIFY processing_until TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  DROP INDEX ix_outbox_events_published_at;
