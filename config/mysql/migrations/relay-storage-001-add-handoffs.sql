-- For a database whose relay tables were created before hand-offs were recorded (MariaDB/MySQL).
-- outbox-relay handoff records each hand-off of an outbox table between CDC and polling here, and
-- relays read it at start to refuse a table handed to the other mode. The handoff command creates
-- it itself when its user has CREATE; otherwise run this once, in the outbox table's database, and
-- give the relay's user the grants below (replace app and the user).
CREATE TABLE IF NOT EXISTS outbox_relay_handoffs (
  resource          VARCHAR(255)  NOT NULL,
  handed_at         TIMESTAMP(6)  NOT NULL,
  to_mode           VARCHAR(16)   NOT NULL,
  relay_name        VARCHAR(255)  NOT NULL,
  operator          VARCHAR(255)  NOT NULL,
  finished_at       TIMESTAMP(6)  NULL,
  summary           VARCHAR(1000) NULL,
  PRIMARY KEY (resource, handed_at)
);
-- GRANT SELECT ON app.outbox_relay_handoffs TO 'outbox_relay'@'%';                 -- every relay
-- GRANT INSERT, UPDATE ON app.outbox_relay_handoffs TO 'outbox_relay'@'%';         -- handoff
-- GRANT SELECT ON app.outbox_relay_leases TO 'outbox_relay'@'%';                   -- polling relays
