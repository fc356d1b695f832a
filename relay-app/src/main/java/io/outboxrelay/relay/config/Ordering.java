package io.outboxrelay.relay.config;

/** How polling mode orders publishing. */
public enum Ordering {
  /**
   * An event is published only when every earlier event of its aggregate is published: one
   * aggregate's events reach Kafka in order, different aggregates in parallel.
   */
  AGGREGATE,
  /** Any due event may be published at any time: full parallelism, no ordering promise. */
  NONE
}
