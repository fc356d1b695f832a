-- The test application's own first migration, beside the starter's (OutboxMigrationsIT).
CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY);
