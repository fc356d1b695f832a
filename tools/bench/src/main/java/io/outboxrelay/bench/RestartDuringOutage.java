package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import java.time.Duration;

/**
 * The relay restarted while its database is down, as a deployment or a crash-looping pod does
 * during a database outage: the running relay is stopped, MariaDB killed, a new relay process
 * started against it, and MariaDB started again after a while. A relay that exits because it cannot
 * connect is restarted as Kubernetes restarts a crash-looping container (10 s, then twice as long
 * each time, at most 5 minutes), so a build that exits and one that waits can be compared: the
 * figure is the time from MariaDB accepting connections to the first event published.
 */
final class RestartDuringOutage extends ModeFault {

  private final Duration down;

  /**
   * @param mode the relays' mode
   * @param down how long the server stays down after the new relay started
   */
  RestartDuringOutage(RelayMode mode, Duration down) {
    super(
        mode == RelayMode.CDC ? "db-down-at-start" : "db-down-at-start-polling",
        mode,
        "relay restarted while MariaDB is down (killed), MariaDB started "
            + down.toSeconds()
            + " s later; a relay that exits is restarted with a crash-loop backoff (10 s, 20 s,"
            + " 40 s...)");
    this.down = down;
  }

  @Override
  public String target() {
    return "first event <= 5 s after MariaDB accepts connections, without a restart";
  }

  @Override
  public void begin(RecoveryBench.World world) {
    for (RelayProcess relay : world.relays()) {
      relay.process().terminate();
      relay.waitFor(Duration.ofSeconds(60));
    }
    world.mariaDb().kill();
    CrashLoopSupervisor.start(world.startRelay(), world.relays().size() + 1);
  }

  @Override
  public long end(RecoveryBench.World world) throws InterruptedException {
    Thread.sleep(down.toMillis());
    world.mariaDb().start(); // returns once the server answers
    long back = System.currentTimeMillis();
    return back;
  }
}
