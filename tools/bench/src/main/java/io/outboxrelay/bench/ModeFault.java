package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;

/**
 * A fault under relays of one mode, which run with the product's defaults and stats every 10 s
 * (polling every 100 ms in polling mode). A subclass says how the fault begins and ends.
 */
abstract class ModeFault implements RecoveryBench.Fault {

  private final String id;
  private final RelayMode mode;
  private final String description;

  /**
   * @param id the fault's id
   * @param mode the relays' mode
   * @param whatHappens the description without the mode, which comes first
   */
  ModeFault(String id, RelayMode mode, String whatHappens) {
    this.id = id;
    this.mode = mode;
    this.description = (mode == RelayMode.CDC ? "CDC" : "polling") + ", " + whatHappens;
  }

  @Override
  public final String id() {
    return id;
  }

  @Override
  public final String description() {
    return description;
  }

  @Override
  public final RelaySettings settings(OutboxDatabase db, String bootstrap, String name) {
    RelaySettings settings =
        mode == RelayMode.CDC
            ? RelaySettings.cdc(db, bootstrap, name)
            : RelaySettings.polling(db.grantPolling(), bootstrap, name)
                .with("polling.interval", "100ms");
    return settings.with("relay.stats.interval", "10s");
  }
}
