package io.outboxrelay.relay.config;

/**
 * What a CDC relay's first start (no stored position) does with the outbox rows already in the
 * table ({@code cdc.first.start}).
 */
public enum FirstStartAction {
  /**
   * Publish them, in id order, from a consistent snapshot, then stream from the binlog position of
   * that snapshot: nothing committed before or during the start is left out.
   */
  PUBLISH,
  /**
   * Publish none of them (they were published elsewhere): stream from the binlog position of the
   * start.
   */
  SKIP
}
