package io.outboxrelay.idempotency;

/**
 * A snapshot of counts since start. Immutable and thread-safe.
 *
 * @param processed events whose handler ran and committed
 * @param duplicates events skipped because their id was already recorded
 * @param stale events skipped because their aggregate version was not newer than the applied one
 * @param conflicts events skipped because their id was already recorded with another payload hash
 *     ({@link Outcome#CONFLICT}, only with the conflict check on)
 * @param failures failed attempts (each rollback counts, also when a retry succeeds later)
 * @param deadLettered records published to a dead-letter topic (always 0 for a processor alone)
 */
public record Counters(
    long processed,
    long duplicates,
    long stale,
    long conflicts,
    long failures,
    long deadLettered) {}
