-- Debezium's outbox table (its outbox event router's documented layout, with the optional
-- timestamp and tracingspancontext columns of its outbox extension), MariaDB 10.6+ / MySQL 8.0+.
-- The relay publishes it unchanged in CDC mode with config/examples/debezium-outbox.properties;
-- polling mode needs the columns of config/mysql/debezium-outbox-polling.sql
-- (docs/migrating-from-debezium.md).
CREATE TABLE outbox (
  id                 CHAR(36)     NOT NULL,   -- the event id (a UUID): the Kafka header "id"
  aggregatetype      VARCHAR(255) NOT NULL,   -- picks the topic: outbox.event.<aggregatetype>
  aggregateid        VARCHAR(255) NOT NULL,   -- the Kafka key
  type               VARCHAR(255) NOT NULL,   -- the event type
  timestamp          TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  payload            JSON         NOT NULL,   -- the record value, its text's bytes
  tracingspancontext VARCHAR(256) NULL,       -- java.util.Properties text: traceparent, tracestate
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
