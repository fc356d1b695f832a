package io.outboxrelay.idempotency.kafka;

/** What the consumer does with a failed attempt; decided by {@link ErrorClassifier}. */
enum Disposition {
  /** Try again after a backoff; when attempts run out, apply the failure policy. */
  RETRY,
  /** The record itself is bad: apply the failure policy at once. */
  POISON,
  /** The consumer's tables need a migration: stop at once (never retry, never dead-letter). */
  SCHEMA_MIGRATION_REQUIRED,
  /** The database cannot be reached: try again; when attempts run out, stop (never dead-letter). */
  DATABASE_UNAVAILABLE
}
