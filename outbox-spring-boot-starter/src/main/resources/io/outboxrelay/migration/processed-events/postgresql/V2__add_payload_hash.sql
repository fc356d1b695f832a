-- payload_hash for a processed_events table created before the conflict check: the statement of
-- config/postgresql/migrations/processed-events-001-add-payload-hash.sql, with IF NOT EXISTS.
-- NULL-able without a default: no table rewrite.
ALTER TABLE processed_events ADD COLUMN IF NOT EXISTS payload_hash bytea NULL;
