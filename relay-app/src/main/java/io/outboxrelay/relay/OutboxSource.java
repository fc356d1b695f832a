package io.outboxrelay.relay;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A source of outbox events that publishes them to Kafka: CDC or polling. Lifecycle: {@link
 * #start()} once, then {@link #stop(Duration)} once; {@link #termination()} completes normally
 * after a requested stop and exceptionally with a {@link RelayFailure} when the source fails on its
 * own. Implementations are thread-safe for these calls.
 */
public interface OutboxSource {

  /**
   * Runs the startup checks and starts publishing; returns when the source is ready, that is when
   * every event committed from now on will be published.
   *
   * @throws StartupCheckException when the source database is not set up for this mode
   * @throws RelayFailure when the source cannot start
   * @throws InterruptedException when interrupted while starting
   */
  void start() throws StartupCheckException, InterruptedException;

  /**
   * Completes when the source has stopped.
   *
   * @return the termination future
   */
  CompletableFuture<Void> termination();

  /**
   * Stops taking new events, waits up to {@code timeout} for events in flight to be acknowledged
   * and their positions committed, then releases everything. Idempotent.
   *
   * @param timeout how long to wait for in-flight events
   */
  void stop(Duration timeout);

  /**
   * The role of this process among the relays sharing the source, for the stats line: e.g. {@code
   * leader (epoch 3)} or {@code standby (holder X, epoch 3)}; empty where every process works
   * (polling).
   *
   * @return the role, or an empty string
   */
  default String role() {
    return "";
  }
}
