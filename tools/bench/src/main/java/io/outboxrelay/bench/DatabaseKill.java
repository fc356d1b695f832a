package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import java.time.Duration;

/**
 * MariaDB killed (SIGKILL, as a crash) under a relay and started again after a while; the same
 * fault for each mode, which only the relays' settings tell apart.
 */
final class DatabaseKill implements RecoveryBench.Fault {

  /** The relays' settings of a mode. */
  @FunctionalInterface
  interface Mode {
    /** See {@link RecoveryBench.Fault#settings}. */
    RelaySettings settings(OutboxDatabase db, String bootstrap, String name);
  }

  private final String id;
  private final String mode;
  private final Duration down;
  private final Mode settings;

  /**
   * @param id the fault's id
   * @param mode the mode's name in the description, e.g. {@code CDC}
   * @param down how long the server stays down
   * @param settings the relays' settings
   */
  DatabaseKill(String id, String mode, Duration down, Mode settings) {
    this.id = id;
    this.mode = mode;
    this.down = down;
    this.settings = settings;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String description() {
    return mode + ", MariaDB killed (SIGKILL) and started again after " + down.toSeconds() + " s";
  }

  @Override
  public RelaySettings settings(OutboxDatabase db, String bootstrap, String name) {
    return settings.settings(db, bootstrap, name);
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
