-- For an outbox table created before polling mode kept failure reasons and had its indexes
-- (PostgreSQL). CONCURRENTLY builds the indexes without blocking the application's writes; run
-- each statement on its own (not inside a transaction block). (Earlier versions of this file also
-- added an index on published_at, which 002 drops.)
ALTER TABLE outbox_events ADD COLUMN last_error varchar(1000) NULL;
CREATE INDEX CONCURRENTLY ix_outbox_events_status_id ON outbox_events (status, id);
CREATE INDEX CONCURRENTLY ix_outbox_events_aggregate ON outbox_events (aggregate_type, aggregate_id, status, id);
