package io.outboxrelay.relay.config;

/** What CDC mode does with an event that retrying cannot publish. */
public enum PoisonAction {
  /** Stop the relay (exit code 1), keeping the position before the event: nothing is lost. */
  FAIL,
  /** Log the event id and the reason at ERROR, count it, and continue after it. */
  SKIP
}
