package io.outboxrelay.idempotency.spring;

import io.outboxrelay.idempotency.Outcome;

/** Counts deliveries in {@link IdempotentListenerCounters} as the listeners' advice does. */
public final class ListenerCounts {

  private ListenerCounts() {}

  /**
   * Counts one delivery of the group that ended with {@code outcome}, or failed when it is {@code
   * null}; the group appears with its first delivery.
   *
   * @param counters the counters
   * @param group the consumer group
   * @param outcome the outcome, or {@code null} for a failure
   */
  public static void count(IdempotentListenerCounters counters, String group, Outcome outcome) {
    if (outcome == null) {
      counters.group(group).failed();
    } else {
      counters.group(group).ended(outcome);
    }
  }
}
