-- For an outbox table created before polling mode kept failure reasons and had its indexes
-- (MariaDB/MySQL). Adds last_error, where polling stores why an event was retried or went DEAD,
-- and the indexes the claim and retention queries need. Safe to run while the application writes
-- (InnoDB online DDL); on a large table run it in a quiet period.
ALTER TABLE outbox_events
  ADD COLUMN last_error VARCHAR(1000) NULL,
  ADD INDEX ix_outbox_events_status_id (status, id),
  ADD INDEX ix_outbox_events_aggregate (aggregate_type, aggregate_id, status, id),
  ADD INDEX ix_outbox_events_published_at (published_at);
