/**
 * Exactly-once effects for consumers of at-least-once events, in plain JDBC: {@link
 * io.outboxrelay.idempotency.IdempotentProcessor} runs a handler in one database transaction that
 * first records {@code (consumer group, event id)} under a unique key; a redelivered event finds
 * its id there and is skipped ({@link io.outboxrelay.idempotency.Outcome#DUPLICATE}), a failure
 * rolls back the id together with the business change. An optional per-aggregate version check
 * skips events older than what was already applied; an optional conflict check reports a different
 * event under an id already recorded ({@link io.outboxrelay.idempotency.Outcome#CONFLICT}). The
 * schema is in {@code config/mysql/processed-events.sql} and {@code
 * config/postgresql/processed-events.sql}. The Kafka consumer loop built on it lives in {@link
 * io.outboxrelay.idempotency.kafka}.
 */
package io.outboxrelay.idempotency;
