-- The example order service's business table (MariaDB/MySQL). Its outbox table is
-- config/mysql/outbox-schema.sql, in the same database: an order and its events commit together.
CREATE TABLE orders (
  id          VARCHAR(64)    NOT NULL,
  customer_id VARCHAR(64)    NOT NULL,
  amount      DECIMAL(12, 2) NOT NULL,
  currency    CHAR(3)        NOT NULL,
  status      VARCHAR(16)    NOT NULL,            -- CREATED, PAID
  version     BIGINT         NOT NULL,            -- 1 when created, +1 per change; each event
                                                  -- carries it as outbox_events.aggregate_version
  created_at  TIMESTAMP(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
