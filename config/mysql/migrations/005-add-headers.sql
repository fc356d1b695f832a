-- Optional, for an outbox table created before application headers (MariaDB/MySQL). Adds headers:
-- a JSON object of string values that both modes publish as Kafka headers after the relay's own
-- (NULL or {}: none; the contract is in README.md, "Application headers"). Tables without it keep
-- working unchanged. Added last and NULL-able, so MariaDB 10.3+ and MySQL 8.0 add it instantly
-- (metadata only, no table rebuild), while the application writes.
-- A CDC relay picks the column up from the binlog as it streams; a polling relay looks for it at
-- start: restart polling relays after running this.
ALTER TABLE outbox_events ADD COLUMN headers JSON NULL;
