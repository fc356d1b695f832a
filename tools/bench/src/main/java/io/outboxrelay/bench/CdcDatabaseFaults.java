package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
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
    return new DatabaseKill("db-kill", "CDC", down, CdcDatabaseFaults::settings);
  }

  /** MariaDB frozen (SIGSTOP) for 30 s and resumed (SIGCONT): a connection silent but open. */
  static RecoveryBench.Fault pause() {
    return new RecoveryBench.Fault() {
      @Override
      public String id() {
        return "db-pause";
      }

      @Override
      public RelaySettings settings(OutboxDatabase db, String bootstrap, String name) {
        return CdcDatabaseFaults.settings(db, bootstrap, name);
      }

      @Override
      public String description() {
        return "CDC, MariaDB frozen (SIGSTOP) for " + PAUSE.toSeconds() + " s";
      }

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

  /** A CDC relay with the product's defaults, stats every 10 s. */
  private static RelaySettings settings(OutboxDatabase db, String bootstrap, String name) {
    return RelaySettings.cdc(db, bootstrap, name).with("relay.stats.interval", "10s");
  }
}
