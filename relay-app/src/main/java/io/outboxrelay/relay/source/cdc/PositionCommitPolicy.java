package io.outboxrelay.relay.source.cdc;

import io.debezium.engine.spi.OffsetCommitPolicy;
import java.time.Duration;

/**
 * When the engine commits the binlog position after a batch: once {@code maxEvents} events were
 * acknowledged since the last commit, or {@code interval} has passed. Under load every batch
 * commits (a full batch reaches {@code maxEvents}); at low rates small batches share one commit,
 * which keeps a durable database round trip off most batches' path. After a crash the events
 * published since the last commit are published again: those acknowledged since it (fewer than
 * {@code maxEvents}, or one interval's worth) and the batch that was being sent, so at most about
 * two batches. A graceful stop always commits. Immutable and thread-safe.
 */
final class PositionCommitPolicy implements OffsetCommitPolicy {

  private final long maxEvents;
  private final Duration interval;

  PositionCommitPolicy(long maxEvents, Duration interval) {
    this.maxEvents = maxEvents;
    this.interval = interval;
  }

  @Override
  public boolean performCommit(long eventsSinceLastCommit, Duration timeSinceLastCommit) {
    return eventsSinceLastCommit >= maxEvents || timeSinceLastCommit.compareTo(interval) >= 0;
  }
}
