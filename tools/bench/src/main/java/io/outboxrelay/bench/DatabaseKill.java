package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import java.time.Duration;

/**
 * MariaDB killed (SIGKILL, as a crash) under a relay and started again after a while; the same
 * fault for each mode, which only the relays' settings tell apart.
 */
final class DatabaseKill extends ModeFault {

  private final Duration down;

  /**
   * @param id the fault's id
   * @param mode the relays' mode
   * @param down how long the server stays down
   */
  DatabaseKill(String id, RelayMode mode, Duration down) {
    super(id, mode, "MariaDB killed (SIGKILL) and started again after " + down.toSeconds() + " s");
    this.down = down;
  }

  @Override
  public void begin(RecoveryBench.World world) {
    world.mariaDb().kill();
  }

  @Override
  public long end(RecoveryBench.World world) throws InterruptedException {
    Thread.sleep(down.toMillis());
    world.mariaDb().start(); // returns once the server answers
    return System.currentTimeMillis();
  }
}
