package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import java.time.Duration;

/**
 * Faults under relays in polling mode with the product's defaults (lease, renewal, workers): one of
 * two relay processes killed with SIGKILL, or the database killed and started again.
 */
final class PollingFaults {

  private PollingFaults() {}

  /**
   * One of two relay processes killed (SIGKILL); the other takes its leased events over. The fault
   * ends when it is killed: the figure that matters is the longest commit-to-Kafka delay, which the
   * killed process's leased events set.
   */
  static RecoveryBench.Fault killRelay() {
    return new ModeFault(
        "relay-kill-polling", RelayMode.POLLING, "one of two relay processes killed (SIGKILL)") {
      @Override
      public String target() {
        return "its leased events published <= 10 s after the kill (the max delay)";
      }

      @Override
      public int relays() {
        return 2;
      }

      /**
       * Kills the first relay while it holds a batch, so that the case measures a takeover (a batch
       * takes milliseconds: a kill at a random moment rarely finds one in flight). The relay is
       * frozen (SIGSTOP) when leased rows exist; rows still leased 300 ms later are its own (the
       * other relay finishes its batches within milliseconds), and it is killed then.
       */
      @Override
      public void begin(RecoveryBench.World world) throws InterruptedException {
        RelayProcess victim = world.relays().get(0);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
          victim.process().pause();
          Object leased =
              world
                  .db()
                  .adminQuery(
                      "SELECT GROUP_CONCAT(id) FROM outbox_events WHERE status = 'PROCESSING'");
          if (leased != null) {
            Thread.sleep(300);
            Object still =
                world
                    .db()
                    .adminQuery(
                        "SELECT COUNT(*) FROM outbox_events WHERE status = 'PROCESSING' AND id IN ("
                            + text(leased)
                            + ")");
            if (((Number) still).longValue() > 0) {
              break;
            }
          }
          victim.process().resume();
          Thread.sleep(5);
        }
        victim.process().kill();
      }

      @Override
      public long end(RecoveryBench.World world) {
        return System.currentTimeMillis();
      }
    };
  }

  private static String text(Object value) {
    return value instanceof byte[] b
        ? new String(b, java.nio.charset.StandardCharsets.US_ASCII)
        : value.toString();
  }

  /** MariaDB killed (SIGKILL) under a polling relay and started again after {@code down}. */
  static RecoveryBench.Fault killDatabase(Duration down) {
    return new DatabaseKill("db-kill-polling", RelayMode.POLLING, down);
  }
}
