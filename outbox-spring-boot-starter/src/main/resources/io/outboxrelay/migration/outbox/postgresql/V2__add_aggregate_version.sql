-- aggregate_version for an outbox table created before aggregate versions: the statement of
-- config/postgresql/migrations/004-add-aggregate-version.sql, with IF NOT EXISTS. NULL-able without
-- a default: no table rewrite.
ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS aggregate_version bigint NULL;
