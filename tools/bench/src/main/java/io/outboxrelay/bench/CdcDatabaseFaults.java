package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import java.time.Duration;

/**
 * The source database failing under a relay in CDC mode: {@code mariadbd} killed with SIGKILL and
 * started again, or frozen with SIGSTOP for 30 s and resumed.
 */
final class CdcDatabaseFaults {

  private static final Duration PAUSE = Duration.ofSeconds(30);

  private CdcDatabaseFaults() {}

  /** MariaDB killed (SIGKILL, as a crash) and started again after {@code down}. */
  static RecoveryBench.Fault kill(Duration down) {
    return new DatabaseKill("db-kill", RelayMode.CDC, down);
  }

  /** MariaDB frozen (SIGSTOP) for 30 s and resumed (SIGCONT): a connection silent but open. */
  static RecoveryBench.Fault pause() {
    return new ModeFault(
        "db-pause", RelayMode.CDC, "MariaDB frozen (SIGSTOP) for " + PAUSE.toSeconds() + " s") {
      @Override
      public void begin(RecoveryBench.World world) {
        world.mariaDb().process().pause();
      }

      @Override
      public long end(RecoveryBench.World world) throws InterruptedException {
        Thread.sleep(PAUSE.toMillis());
        world.mariaDb().process().resume();
        return System.currentTimeMillis();
      }
    };
  }
}
