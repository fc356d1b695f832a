-- Optional, for a processed_events table (consumer-idempotency, in the CONSUMER's database) created
-- before the conflict check (PostgreSQL). Adds payload_hash: the SHA-256 of each event's payload,
-- recorded with its id by processors built with conflictCheck(), so that a different event reusing
-- an id is reported as CONFLICT instead of being skipped as a duplicate. Processors without the
-- check work with and without the column; with it, they refuse a table without it.
-- A NULL-able column without a default is added without rewriting the table, while consumers run.
-- Rows recorded before keep NULL: their ids are not compared.
-- Use your table name if you configured another one (processedEventsTable).
ALTER TABLE processed_events ADD COLUMN payload_hash bytea NULL;
