package io.outboxrelay.idempotency;

import java.time.Instant;

/**
 * What one retention run deleted. Immutable and thread-safe.
 *
 * @param deletedRows rows of the processed-events table deleted
 * @param batches delete statements run (each one its own transaction)
 * @param cutoff rows processed before this database-clock instant were deleted
 */
public record PurgeResult(long deletedRows, int batches, Instant cutoff) {}
