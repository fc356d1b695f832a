package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
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
    return new RecoveryBench.Fault() {
      @Override
      public String id() {
        return polling ? "broker-stop-polling" : "broker-stop";
      }

      @Override
      public String description() {
        return (polling ? "polling" : "CDC")
            + ", Kafka broker stopped and started again after "
            + down.toSeconds()
            + " s";
      }

      @Override
      public RelaySettings settings(OutboxDatabase db, String bootstrap, String name) {
        RelaySettings s =
            polling
                ? RelaySettings.polling(db.grantPolling(), bootstrap, name)
                    .with("polling.interval", "100ms")
                : RelaySettings.cdc(db, bootstrap, name);
        return s.with("relay.stats.interval", "10s");
      }

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
