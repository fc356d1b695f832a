package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import java.time.Duration;

/**
 * The Kafka broker stopped (SIGTERM) under a relay in either mode and started again after a while.
 * It is the bench's own broker: its topics survive, and the groups that run later use it as before.
 */
final class BrokerFaults {

  private BrokerFaults() {}

  /**
   * The broker stopped and started again after {@code down}, under a relay in CDC mode or in
   * polling mode.
   */
  static RecoveryBench.Fault stop(boolean polling, Duration down) {
    return new ModeFault(
        polling ? "broker-stop-polling" : "broker-stop",
        polling ? RelayMode.POLLING : RelayMode.CDC,
        "Kafka broker stopped and started again after " + down.toSeconds() + " s") {
      @Override
      public void begin(RecoveryBench.World world) {
        world.kafka().stop();
      }

      @Override
      public long end(RecoveryBench.World world) throws InterruptedException {
        Thread.sleep(down.toMillis());
        world.kafka().start(); // returns once the broker has started
        return System.currentTimeMillis();
      }
    };
  }
}
