package io.outboxrelay.endtoend;

import io.outboxrelay.relay.config.RelayMode;

/** The whole path with the relay reading the binlog (CDC mode). */
class CdcEndToEndIT extends AbstractEndToEndIT {

  @Override
  protected RelayMode mode() {
    return RelayMode.CDC;
  }
}
