-- For an outbox table created before `outbox-relay dead skip` (PostgreSQL). Lets status hold
-- SKIPPED: an event an operator marked never to be published. NOT VALID adds the new check without
-- reading the table under an exclusive lock; VALIDATE then reads it under a lock that lets the
-- application and the relays go on. The constraint name is PostgreSQL's default for the column's
-- check; \d outbox_events shows it if yours differs. MariaDB/MySQL need nothing (status is
-- CHAR(10) with no check): their 003-allow-skipped-status.sql runs no statement.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_status_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_status_check
  CHECK (status IN ('PENDING', 'PROCESSING', 'PUBLISHED', 'DEAD', 'SKIPPED')) NOT VALID;
ALTER TABLE outbox_events VALIDATE CONSTRAINT outbox_events_status_check;
