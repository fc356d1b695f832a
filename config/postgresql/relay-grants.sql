-- Least-privilege roles for PostgreSQL. Replace the names and passwords.
CREATE ROLE app LOGIN PASSWORD 'change-me';
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app;

-- The relay in polling mode: reads and updates the outbox rows it publishes.
CREATE ROLE outbox_relay LOGIN PASSWORD 'change-me';
GRANT SELECT, UPDATE ON outbox_events TO outbox_relay;
-- Only with polling.retention (deletes old PUBLISHED rows):
GRANT DELETE ON outbox_events TO outbox_relay;
-- Where CDC relays and hand-offs leave their traces (config/postgresql/relay-storage.sql), which
-- polling reads at start to refuse a table CDC serves:
--   GRANT SELECT ON outbox_relay_leases, outbox_relay_handoffs TO outbox_relay;

-- The relay in CDC mode instead (wal_level=logical; docs/postgresql.md). It streams through a
-- replication slot and a publication named outbox_relay_<relay.name> (lower case, '.' and '-' as
-- '_'). Run as a superuser or the table's owner, with your relay.name in place of orders:
--   ALTER ROLE outbox_relay REPLICATION;
--   GRANT SELECT ON outbox_events TO outbox_relay;
--   CREATE PUBLICATION outbox_relay_orders FOR TABLE outbox_events WITH (publish = 'insert');
-- and its position and leadership tables (config/postgresql/relay-storage.sql):
--   GRANT SELECT, INSERT, DELETE ON outbox_relay_offsets TO outbox_relay;
--   GRANT SELECT, INSERT, UPDATE ON outbox_relay_leases TO outbox_relay;
--   GRANT SELECT ON outbox_relay_handoffs TO outbox_relay;
-- The relay creates the publication itself when it owns the table and has CREATE on the database,
-- and the two tables when it has CREATE on the schema; Debezium creates the slot.
-- outbox-relay handoff (CDC <-> polling) besides: it marks rows, records the hand-off and drops
-- the slot after a hand-off to polling (the relay's own slot: REPLICATION suffices):
--   GRANT SELECT, UPDATE ON outbox_events TO outbox_relay;
--   GRANT SELECT, INSERT, UPDATE ON outbox_relay_handoffs TO outbox_relay;
