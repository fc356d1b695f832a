-- Optional, for an outbox table created before aggregate versions (MariaDB/MySQL). Adds
-- aggregate_version: the version an event brings its aggregate to, which both modes publish as the
-- header "aggregate_version" when the column is there (NULL: no header). Tables without it keep
-- working unchanged. Added last and NULL-able, so MariaDB 10.3+ and MySQL 8.0 add it instantly
-- (metadata only, no table rebuild), while the application writes.
-- A CDC relay picks the column up from the binlog as it streams; a polling relay looks for it at
-- start: restart polling relays after running this.
ALTER TABLE outbox_events ADD COLUMN aggregate_version BIGINT NULL;
