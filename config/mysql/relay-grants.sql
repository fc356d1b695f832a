-- Least-privilege users. Replace app, the host part and the passwords with yours.

-- The application: writes outbox rows in its business transactions.
CREATE USER 'app'@'%' IDENTIFIED BY 'change-me';
GRANT SELECT, INSERT, UPDATE, DELETE ON app.* TO 'app'@'%';

-- The relay in CDC mode: reads the binlog and the outbox table's definition, keeps its position.
CREATE USER 'outbox_relay'@'%' IDENTIFIED BY 'change-me';
-- Read the binlog as a replica would, and ask for the current binlog position.
-- MariaDB 10.5+: BINLOG MONITOR (REPLICATION CLIENT is its alias). MySQL: REPLICATION CLIENT.
GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'outbox_relay'@'%';
-- MySQL instead:  GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'outbox_relay'@'%';
-- The outbox table: its definition and, for the startup checks, a zero-row read.
GRANT SELECT ON app.outbox_events TO 'outbox_relay'@'%';
-- The position, schema history and lease tables (create them first with relay-storage.sql).
GRANT SELECT, INSERT, DELETE ON app.outbox_relay_offsets TO 'outbox_relay'@'%';
GRANT SELECT, INSERT, DELETE ON app.outbox_relay_schema_history TO 'outbox_relay'@'%';
-- The lease: taken, renewed and given up with UPDATE; the first relay on a table INSERTs it.
GRANT SELECT, INSERT, UPDATE ON app.outbox_relay_leases TO 'outbox_relay'@'%';
-- The hand-off record: a relay refuses to start on a table handed to the other mode.
GRANT SELECT ON app.outbox_relay_handoffs TO 'outbox_relay'@'%';
-- Polling mode instead needs the outbox table itself (DELETE only with polling.retention), and,
-- to refuse a table CDC serves, to read the lease and hand-off records where they exist:
--   GRANT SELECT, UPDATE, DELETE ON app.outbox_events TO 'outbox_relay'@'%';
--   GRANT SELECT ON app.outbox_relay_leases TO 'outbox_relay'@'%';
--   GRANT SELECT ON app.outbox_relay_handoffs TO 'outbox_relay'@'%';
-- CDC retention (cdc.retention) deletes published rows:
--   GRANT DELETE ON app.outbox_events TO 'outbox_relay'@'%';
-- outbox-relay handoff (between CDC and polling) needs the CDC grants above and (it takes no
-- table lock):
--   GRANT SELECT, UPDATE ON app.outbox_events TO 'outbox_relay'@'%';   -- --to polling marks rows
--   GRANT INSERT, UPDATE ON app.outbox_relay_handoffs TO 'outbox_relay'@'%';
-- Not needed by the relay: RELOAD and LOCK TABLES (it reads its start position without a global
-- read lock: snapshot.locking.mode=none), SUPER, or access to any other table.
