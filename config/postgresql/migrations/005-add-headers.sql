-- Optional, for an outbox table created before application headers (PostgreSQL). Adds headers: a
-- JSON object of string values that polling mode publishes as Kafka headers after the relay's own
-- (NULL or {}: none; the contract is in README.md, "Application headers"). Tables without it keep
-- working unchanged. A NULL-able column without a default is added without rewriting the table.
-- jsonb orders an object's members its own way; use "text NULL CHECK (headers::jsonb IS NOT
-- NULL)" instead where the order the application writes must be kept.
-- A polling relay looks for the column at start: restart the relays after running this.
ALTER TABLE outbox_events ADD COLUMN headers jsonb NULL;
