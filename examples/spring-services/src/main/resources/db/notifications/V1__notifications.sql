-- The notification service's own tables (its Flyway, spring.flyway.locations=
-- classpath:db/notifications). processed_events comes from the starter's shipped migrations.
CREATE TABLE IF NOT EXISTS customer_orders (
  order_id     VARCHAR(36)  NOT NULL PRIMARY KEY,
  customer     VARCHAR(100) NOT NULL,
  amount_cents BIGINT       NOT NULL,
  status       VARCHAR(16)  NOT NULL
);
CREATE TABLE IF NOT EXISTS notifications (
  id         BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  order_id   VARCHAR(36)  NOT NULL,
  kind       VARCHAR(32)  NOT NULL,
  message    VARCHAR(200) NOT NULL
);
