-- The order service's own table (its Flyway, spring.flyway.locations=classpath:db/orders). The
-- outbox table comes from the starter's shipped migrations (outbox.migrations.enabled=true).
CREATE TABLE IF NOT EXISTS orders (
  id           VARCHAR(36)  NOT NULL PRIMARY KEY,
  customer     VARCHAR(100) NOT NULL,
  amount_cents BIGINT       NOT NULL,
  status       VARCHAR(16)  NOT NULL,
  version      BIGINT       NOT NULL
);
