-- aggregate_version for an outbox table created before aggregate versions: the statement of
-- config/mysql/migrations/004-add-aggregate-version.sql, run only when the column is missing (MySQL
-- has no ADD COLUMN IF NOT EXISTS). NULL-able and added last: no table rebuild.
SET @outbox_ddl = (
  SELECT IF(COUNT(*) = 0, 'ALTER TABLE outbox_events ADD COLUMN aggregate_version BIGINT NULL', 'DO 0')
  FROM information_schema.COLUMNS
  WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'aggregate_version');
PREPARE outbox_ddl FROM @outbox_ddl;
EXECUTE outbox_ddl;
DEALLOCATE PREPARE outbox_ddl;
SET @outbox_ddl = NULL;
