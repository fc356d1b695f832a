-- CDC mode on PostgreSQL: the table where the relay keeps its position (the replication slot's LSN,
-- Debezium's JDBC offset store) and the leadership table, in the outbox table's database and
-- schema. The relay creates them itself when its user has CREATE on the schema; otherwise run this
-- once as the schema's owner. Names are the defaults of cdc.offsets.table and cdc.leader.table.
CREATE TABLE outbox_relay_offsets (
  id                varchar(36)   NOT NULL,
  offset_key        varchar(1255),
  offset_val        varchar(1255),
  record_insert_ts  timestamp     NOT NULL,
  record_insert_seq integer       NOT NULL,
  PRIMARY KEY (id)
);

-- One leadership row per outbox table (resource = database.table); times come from the database
-- clock (clock_timestamp()); epoch rises with every takeover and fences position commits.
CREATE TABLE outbox_relay_leases (
  resource          varchar(255)  NOT NULL,
  holder            varchar(255)  NOT NULL,
  relay_name        varchar(255)  NOT NULL,
  epoch             bigint        NOT NULL,
  expires_at        timestamptz   NOT NULL DEFAULT clock_timestamp(),
  renewed_at        timestamptz   NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (resource)
);

-- The record of the table's hand-offs between CDC and polling (outbox-relay handoff): which mode
-- the table was last handed to, when, by whom, for which CDC relay.name, and whether it finished.
-- Relays of either mode read it at start; the command creates it when its user may.
CREATE TABLE outbox_relay_handoffs (
  resource          varchar(255)  NOT NULL,
  handed_at         timestamptz   NOT NULL,
  to_mode           varchar(16)   NOT NULL,
  relay_name        varchar(255)  NOT NULL,
  operator          varchar(255)  NOT NULL,
  finished_at       timestamptz   NULL,
  summary           varchar(1000) NULL,
  PRIMARY KEY (resource, handed_at)
);
