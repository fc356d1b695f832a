-- For an outbox table created with an index on published_at (PostgreSQL). Retention now walks
-- (status, id), and every finish paid for this index. Upgrade the relays first, then run it (not
-- inside a transaction block).
DROP INDEX CONCURRENTLY IF EXISTS ix_outbox_events_published_at;
