-- Optional, for a processed_events table (consumer-idempotency, in the CONSUMER's database) created
-- before the conflict check (MariaDB/MySQL). Adds payload_hash: the SHA-256 of each event's payload,
-- recorded with its id by processors built with conflictCheck(), so that a different event reusing
-- an id is reported as CONFLICT instead of being skipped as a duplicate. Processors without the
-- check work with and without the column; with it, they refuse a table without it.
-- Added last and NULL-able, so MariaDB 10.3+ and MySQL 8.0 add it instantly (metadata only, no
-- table rebuild) while consumers run. Rows recorded before keep NULL: their ids are not compared.
-- Use your table name if you configured another one (processedEventsTable).
ALTER TABLE processed_events ADD COLUMN payload_hash BINARY(32) NULL;
