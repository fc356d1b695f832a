-- Least-privilege roles for PostgreSQL (polling mode). Replace the names and passwords.
CREATE ROLE app LOGIN PASSWORD 'change-me';
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app;

-- The relay in polling mode: reads and updates the outbox rows it publishes.
CREATE ROLE outbox_relay LOGIN PASSWORD 'change-me';
GRANT SELECT, UPDATE ON outbox_events TO outbox_relay;
-- Only with polling.retention (deletes old PUBLISHED rows):
GRANT DELETE ON outbox_events TO outbox_relay;
