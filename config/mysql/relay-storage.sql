-- Tables where CDC mode keeps its binlog position and the schema history of the outbox table
-- (Debezium's JDBC offset store and schema history), the lease that lets one relay publish while
-- the others stand by, and the record of hand-offs between CDC and polling, in the same database
-- as the outbox table.
-- The relay creates them itself when its user has CREATE on the database; otherwise run this once.
-- Names are the defaults of cdc.offsets.table, cdc.schema.history.table and cdc.leader.table;
-- outbox_relay_handoffs has a fixed name.
CREATE TABLE outbox_relay_offsets (
  id                VARCHAR(36)   NOT NULL,
  offset_key        VARCHAR(1255),
  offset_val        VARCHAR(1255),
  record_insert_ts  TIMESTAMP     NOT NULL,
  record_insert_seq INTEGER       NOT NULL,
  PRIMARY KEY (id)
);

-- history_data holds chunks of up to 65,000 characters: more than a utf8mb4 VARCHAR can hold.
CREATE TABLE outbox_relay_schema_history (
  id                VARCHAR(36)   NOT NULL,
  history_data      MEDIUMTEXT,
  history_data_seq  INTEGER,
  record_insert_ts  TIMESTAMP     NOT NULL,
  record_insert_seq INTEGER       NOT NULL,
  PRIMARY KEY (id, history_data_seq)
);

-- One lease per outbox table (resource = database.table): the relay holding it publishes. Times
-- come from the database clock (NOW(6)); epoch rises with every takeover and fences position
-- commits of a relay that lost the lease.
CREATE TABLE outbox_relay_leases (
  resource          VARCHAR(255)  NOT NULL,
  holder            VARCHAR(255)  NOT NULL,
  relay_name        VARCHAR(255)  NOT NULL,
  epoch             BIGINT        NOT NULL,
  expires_at        TIMESTAMP(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  renewed_at        TIMESTAMP(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (resource)
);

-- One row per hand-off of an outbox table between CDC and polling (outbox-relay handoff): which
-- mode the table was handed to, when by the database clock, by whom, for which CDC relay.name,
-- and whether it finished. Relays refuse to start in the mode the table was not handed to.
CREATE TABLE outbox_relay_handoffs (
  resource          VARCHAR(255)  NOT NULL,
  handed_at         TIMESTAMP(6)  NOT NULL,
  to_mode           VARCHAR(16)   NOT NULL,
  relay_name        VARCHAR(255)  NOT NULL,
  operator          VARCHAR(255)  NOT NULL,
  finished_at       TIMESTAMP(6)  NULL,
  summary           VARCHAR(1000) NULL,
  PRIMARY KEY (resource, handed_at)
);
