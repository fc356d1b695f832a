-- headers for an outbox table created before application headers: the statement of
-- config/mysql/migrations/005-add-headers.sql, run only when the column is missing (MySQL has no
-- ADD COLUMN IF NOT EXISTS). NULL-able and added last: no table rebuild.
SET @outbox_ddl = (
  SELECT IF(COUNT(*) = 0, 'ALTER TABLE outbox_events ADD COLUMN headers JSON NULL', 'DO 0')
  FROM information_schema.COLUMNS
  WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'headers');
PREPARE outbox_ddl FROM @outbox_ddl;
EXECUTE outbox_ddl;
DEALLOCATE PREPARE outbox_ddl;
SET @outbox_ddl = NULL;
