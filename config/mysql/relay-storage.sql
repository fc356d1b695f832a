-- Tables where CDC mode keeps its binlog position and the schema history of the outbox table
-- (Debezium's JDBC offset store and schema history), in the same database as the outbox table.
-- The relay creates them itself when its user has CREATE on the database; otherwise run this once.
-- Names are the defaults of cdc.offsets.table and cdc.schema.history.table.
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
