-- Optional, for an outbox table created before aggregate versions (PostgreSQL). Adds
-- aggregate_version: the version an event brings its aggregate to, which polling mode publishes as
-- the header "aggregate_version" when the column is there (NULL: no header). Tables without it keep
-- working unchanged. A NULL-able column without a default is added without rewriting the table.
-- A polling relay looks for the column at start: restart the relays after running this.
ALTER TABLE outbox_events ADD COLUMN aggregate_version bigint NULL;
