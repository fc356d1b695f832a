-- The example notification service's own database (MariaDB/MySQL): a consumer of the order
-- service's events, with its own tables and no access to the order service's database.
-- Run config/mysql/processed-events.sql in the same database first: the idempotent consumer
-- records each event id there, in the same transaction as the changes below.

-- What the service knows about each order, built from OrderCreated and OrderPaid.
CREATE TABLE customer_orders (
  order_id    VARCHAR(64)    NOT NULL,
  customer_id VARCHAR(64)    NOT NULL,
  amount      DECIMAL(12, 2) NOT NULL,
  currency    CHAR(3)        NOT NULL,
  status      VARCHAR(16)    NOT NULL,              -- CREATED, PAID
  paid_at     TIMESTAMP(6)   NULL,                  -- database clock, when OrderPaid was applied
  PRIMARY KEY (order_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- One row per notification sent; a redelivered OrderPaid must not add a second one.
CREATE TABLE notifications (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  order_id    VARCHAR(64)  NOT NULL,
  customer_id VARCHAR(64)  NOT NULL,
  kind        VARCHAR(32)  NOT NULL,                -- PAYMENT_RECEIVED
  created_at  TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (id),
  KEY ix_notifications_order (order_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
