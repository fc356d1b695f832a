package io.outboxrelay.endtoend;

import io.outboxrelay.relay.config.RelayMode;

/** The whole path with the relay claiming rows from the outbox table (polling mode). */
class PollingEndToEndIT extends AbstractEndToEndIT {

  @Override
  protected RelayMode mode() {
    return RelayMode.POLLING;
  }
}
