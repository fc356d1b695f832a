-- payload_hash for a processed_events table created before the conflict check: the statement of
-- config/mysql/migrations/processed-events-001-add-payload-hash.sql, run only when the column is
-- missing (MySQL has no ADD COLUMN IF NOT EXISTS). NULL-able and added last: no table rebuild.
SET @outbox_ddl = (
  SELECT IF(COUNT(*) = 0, 'ALTER TABLE processed_events ADD COLUMN payload_hash BINARY(32) NULL', 'DO 0')
  FROM information_schema.COLUMNS
  WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'processed_events' AND COLUMN_NAME = 'payload_hash');
PREPARE outbox_ddl FROM @outbox_ddl;
EXECUTE outbox_ddl;
DEALLOCATE PREPARE outbox_ddl;
SET @outbox_ddl = NULL;
