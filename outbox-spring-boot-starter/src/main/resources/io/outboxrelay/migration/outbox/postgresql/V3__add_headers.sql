-- headers for an outbox table created before application headers: the statement of
-- config/postgresql/migrations/005-add-headers.sql, with IF NOT EXISTS. NULL-able without a
-- default: no table rewrite.
ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS headers jsonb NULL;
