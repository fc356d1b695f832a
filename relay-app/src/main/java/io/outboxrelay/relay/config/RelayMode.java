package io.outboxrelay.relay.config;

/** How the relay finds new outbox rows. */
public enum RelayMode {
  /** Tail the MySQL/MariaDB binlog with an embedded Debezium engine. */
  CDC,
  /** Claim due rows with {@code SELECT ... FOR UPDATE SKIP LOCKED} and lease them. */
  POLLING
}
