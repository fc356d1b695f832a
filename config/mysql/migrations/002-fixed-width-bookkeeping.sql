-- For an outbox table created before the bookkeeping columns were fixed-width (MariaDB/MySQL).
-- Makes status, claim_token and processing_until fixed-width and NOT NULL, so that polling's claims
-- update rows in place (with the index below gone, measured about a fifth less database CPU per
-- event), and drops the index on published_at (retention walks (status, id) now). CDC mode does
-- not use these columns.
--
-- Order: first upgrade every polling-mode relay (this version works with the old and the new
-- columns; older versions write NULLs the new columns refuse), then run these statements in one
-- session, in this order. The first only changes defaults (no copy), so rows inserted from then on
-- carry no NULL and the last statement cannot meet one. The UPDATEs touch rows released by older
-- versions; READ COMMITTED keeps them from locking anything else. The last ALTER rebuilds the table
-- and the application's inserts wait while it copies: on a large table, run it in a quiet period,
-- or delete old PUBLISHED rows first.
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
ALTER TABLE outbox_events
  MODIFY claim_token      CHAR(36) NULL DEFAULT '',
  MODIFY processing_until TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6);
UPDATE outbox_events SET claim_token = '' WHERE claim_token IS NULL;
UPDATE outbox_events SET processing_until = created_at WHERE processing_until IS NULL;
-- Skip this one if the table has no such index (MySQL has no DROP INDEX IF EXISTS).
ALTER TABLE outbox_events DROP INDEX ix_outbox_events_published_at;
ALTER TABLE outbox_events
  MODIFY status           CHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'PENDING',
  MODIFY claim_token      CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
  MODIFY processing_until TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6);
