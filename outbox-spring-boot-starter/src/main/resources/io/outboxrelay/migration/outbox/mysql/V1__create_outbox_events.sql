-- outbox-relay's outbox table (MariaDB 10.6+ and MySQL 8.0+): the statement of config/mysql/outbox-schema.sql, with
-- IF NOT EXISTS, so that a table the application created before (from that file, or an older
-- layout) is kept as it is; the later versions add the columns it lacks. Run by the Spring Boot
-- starter when outbox.migrations.enabled=true, with its own history table (outbox_schema_history).
CREATE TABLE IF NOT EXISTS outbox_events (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  event_id         CHAR(36)        NOT NULL,               -- UUID; the Kafka header "id", consumers deduplicate on it
  aggregate_type   VARCHAR(255)    NOT NULL,               -- e.g. "order"; picks the topic (outbox.event.order)
  aggregate_id     VARCHAR(255)    NOT NULL,               -- the Kafka key: per-aggregate order
  event_type       VARCHAR(255)    NOT NULL,               -- e.g. "OrderCreated"; the header "event_type"
  payload          JSON            NOT NULL,               -- published as its raw bytes (MariaDB keeps them as written)
  created_at       TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  -- Optional (leave it out, or NULL, for events without a version): the version this event brings
  -- its aggregate to, 1, 2, 3... per aggregate; published as the header "aggregate_version"
  -- (decimal text), which consumer-idempotency's version check reads.
  aggregate_version BIGINT         NULL,
  -- Optional (leave it out, or NULL, for events without): application headers, a JSON object of
  -- string values, e.g. {"tenant":"acme"}, published as Kafka headers after the relay's own, in
  -- member order. The contract (reserved names, sizes): README.md, "Application headers". MySQL's
  -- JSON reorders members; declare LONGTEXT with a JSON_VALID check where their order matters.
  headers          JSON            NULL,
  -- Polling mode bookkeeping (CDC mode ignores these columns; the application never sets them).
  -- status, claim_token and processing_until are fixed-width and NOT NULL so that a claim
  -- overwrites them in place: InnoDB rewrites a record whose size changes (a NULL filled or
  -- emptied, a VARCHAR that grows or shrinks), which measured several times slower per row.
  status           CHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'PENDING',  -- PENDING, PROCESSING, PUBLISHED, DEAD, SKIPPED
  attempts         INT             NOT NULL DEFAULT 0,
  next_attempt_at  TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  claim_token      CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',         -- '' when no claim owns the row
  processing_until TIMESTAMP(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),    -- when the lease ends, or the last one ended
  published_at     TIMESTAMP(6)    NULL,
  last_error       VARCHAR(1000)   NULL,
  PRIMARY KEY (id),
  UNIQUE KEY ux_outbox_events_event_id (event_id),
  -- Polling mode (a CDC-only deployment can leave these two out):
  -- claims walk due rows of one status in id order, never touching PUBLISHED rows; retention
  -- walks the oldest PUBLISHED rows the same way;
  KEY ix_outbox_events_status_id (status, id),
  -- "is this the aggregate's oldest unpublished event?" reads a few entries of one status, never
  -- the aggregate's published history.
  KEY ix_outbox_events_aggregate (aggregate_type, aggregate_id, status, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- MySQL 8 stores JSON in a binary form and gives it back re-serialised (key order and spacing may
-- change). To publish byte-identical payloads from MySQL, declare the column as
--   payload LONGTEXT NOT NULL CHECK (JSON_VALID(payload))
-- MariaDB's JSON is LONGTEXT with such a check already.
