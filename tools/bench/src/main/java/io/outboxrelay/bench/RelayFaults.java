package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import java.time.Duration;
import java.util.List;

/**
 * The relay process itself failing in CDC mode: killed with SIGKILL and started again at once, or
 * frozen with SIGSTOP and resumed. Each acts on the relay started last.
 */
final class RelayFaults {

  private RelayFaults() {}

  /** The relay killed (SIGKILL, as a crash) and a new one started at once; it ends when ready. */
  static RecoveryBench.Fault kill() {
    return new ModeFault("relay-kill", RelayMode.CDC, "relay killed (SIGKILL) and started again") {
      @Override
      public void begin(RecoveryBench.World world) {
        RelayProcess relay = last(world.relays());
        relay.process().kill();
        relay.waitFor(Duration.ofSeconds(30));
      }

      @Override
      public long end(RecoveryBench.World world) {
        world.startRelay().apply(world.relays().size() + 1).awaitReady();
        return System.currentTimeMillis();
      }
    };
  }

  /** The relay frozen (SIGSTOP) for {@code frozen} and resumed (SIGCONT). */
  static RecoveryBench.Fault freeze(Duration frozen) {
    return new ModeFault(
        "relay-freeze", RelayMode.CDC, "relay frozen (SIGSTOP) for " + frozen.toSeconds() + " s") {
      @Override
      public void begin(RecoveryBench.World world) {
        last(world.relays()).process().pause();
      }

      @Override
      public long end(RecoveryBench.World world) throws InterruptedException {
        Thread.sleep(frozen.toMillis());
        last(world.relays()).process().resume();
        return System.currentTimeMillis();
      }
    };
  }

  private static RelayProcess last(List<RelayProcess> relays) {
    return relays.get(relays.size() - 1);
  }
}
