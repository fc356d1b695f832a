-- For an outbox table created before polling mode kept failure reasons and had its indexes
-- (MariaDB/MySQL). Adds last_error, where polling stores why an event was retried or went DEAD,
-- and the indexes the claims need. Safe to run while the application writes (InnoDB online DDL);
-- on a large table run it in a quiet period. (Earlier versions of this file also added an index on
-- published_at, which 002 drops.) Then run 002-fixed-width-bookkeeping.sql.
ALTER TABLE outbox_events
  ADD COLUMN last_error VARCHAR(1000) NULL,
  ADD INDEX ix_outbox_events_status_id (status, id),
  ADD INDEX ix_outbox_events_aggregate (aggregate_type, aggregate_id, status, id);
