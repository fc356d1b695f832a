package io.outboxrelay.bench;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery from faults under a steady load: an application writes at a fixed rate, the bench
 * injects a {@link Fault} into the relay's world and ends it, and reports the seconds from the end
 * of the fault (the failed component accepts connections again) to the first event the broker
 * appended after it, and the longest delay from an event's commit to its append. A ledger checks
 * that every committed event arrived, in order per aggregate.
 *
 * <p>Each case runs on a {@link FaultStage} of its own. Not thread-safe.
 */
final class RecoveryBench {

  private static final Logger LOG = LoggerFactory.getLogger(RecoveryBench.class);

  /**
   * A fault the bench injects into a running relay's world and ends. A case for another component
   * or mode (a broker stopped, a relay killed in polling mode) is one more implementation: it says
   * how the relay runs ({@link #settings}, {@link #relays}) and how the fault begins and ends.
   */
  interface Fault {

    /** A short name for {@code --recovery-faults}, e.g. {@code db-kill}. */
    String id();

    /** What happens, for the result table, e.g. {@code CDC, MariaDB killed (SIGKILL) ...}. */
    String description();

    /**
     * The relay's settings for this case.
     *
     * @param db the case's outbox database (a polling case grants it the polling rights first)
     * @param bootstrap the Kafka broker
     * @param name the relay's name and topic prefix
     * @return the settings
     */
    RelaySettings settings(OutboxDatabase db, String bootstrap, String name);

    /** How many relay processes run the case (a relay kill needs a second one to take over). */
    default int relays() {
      return 1;
    }

    /** The target this case is measured against, for the result table. */
    default String target() {
      return "first event <= 5 s after the end of the fault";
    }

    /** Causes the fault; returns once it is in effect. */
    void begin(World world) throws Exception;

    /**
     * Ends the fault.
     *
     * @return the wall-clock time (epoch ms) at which the failed component was back: accepting
     *     connections, running again
     */
    long end(World world) throws Exception;
  }

  /**
   * What a fault acts on during a case.
   *
   * @param startRelay starts relay number n of the case (not waiting until it is ready)
   */
  record World(
      MariaDbServer mariaDb,
      KafkaBroker kafka,
      OutboxDatabase db,
      List<RelayProcess> relays,
      java.util.function.IntFunction<RelayProcess> startRelay) {}

  private final BenchEnv env;

  RecoveryBench(BenchEnv env) {
    this.env = env;
  }

  /** The faults of this group, in the order they run. */
  static List<Fault> faults() {
    return List.of(
        CdcDatabaseFaults.kill(Duration.ofSeconds(5)),
        CdcDatabaseFaults.pause(),
        BrokerFaults.stop(false, Duration.ofSeconds(10)),
        BrokerFaults.stop(true, Duration.ofSeconds(10)),
        PollingFaults.killRelay(),
        PollingFaults.killDatabase(Duration.ofSeconds(5)),
        new RestartDuringOutage(RelayMode.CDC, Duration.ofSeconds(10)),
        new RestartDuringOutage(RelayMode.POLLING, Duration.ofSeconds(10)),
        new UnresolvedHostAtStart(Duration.ofSeconds(15)));
  }

  /**
   * Runs each case: {@code load} of steady writing, the fault, {@code load} again after it.
   *
   * @param rate events per second the application writes
   */
  void run(ResultTable table, List<Fault> faults, int rate, Duration load) throws Exception {
    for (Fault fault : faults) {
      System.err.println("  recovery: " + fault.description() + "...");
      runCase(table, fault, rate, load);
    }
  }

  private void runCase(ResultTable table, Fault fault, int rate, Duration load) throws Exception {
    String name = "bench-rec-" + fault.id() + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    String bootstrap = env.bootstrapServers();
    try (FaultStage stage = FaultStage.open(env, name, db -> fault.settings(db, bootstrap, name))) {
      long faultEnd;
      Map<String, Long> commitMillis;
      try {
        for (int i = 1; i <= fault.relays(); i++) {
          stage.startRelay(i).awaitReady();
        }
        World world =
            new World(stage.mariaDb(), env.kafka(), stage.db(), stage.relays(), stage::startRelay);
        try (SteadyWriter writer = stage.startWriter(rate)) {
          Thread.sleep(load.toMillis());
          fault.begin(world);
          faultEnd = fault.end(world);
          Thread.sleep(load.toMillis());
          writer.stop(Duration.ofSeconds(120));
          commitMillis = writer.commitMillis();
        }
        stage.reader().readUntil(stage.ledger()::allArrived, Duration.ofSeconds(120));
      } finally {
        stage.stopRelays();
      }
      report(table, fault, rate, stage, commitMillis, faultEnd);
    }
  }

  private void report(
      ResultTable table,
      Fault fault,
      int rate,
      FaultStage stage,
      Map<String, Long> commitMillis,
      long faultEnd) {
    List<ConsumedRecord> records =
        stage.reader().readAll(Duration.ofSeconds(3), Duration.ofSeconds(120));
    Ledger.Result result = stage.ledger().check(records);
    long firstAfter = Long.MAX_VALUE;
    long maxDelay = 0;
    for (ConsumedRecord r : records) {
      if (r.timestamp() >= faultEnd) {
        firstAfter = Math.min(firstAfter, r.timestamp());
      }
      Long committed = commitMillis.get(r.header("id"));
      if (committed != null) {
        maxDelay = Math.max(maxDelay, r.timestamp() - committed);
      }
    }
    String firstEvent =
        firstAfter == Long.MAX_VALUE
            ? "nothing published after the fault"
            : String.format(
                "%.1f s to the first event after the fault", (firstAfter - faultEnd) / 1e3);
    LOG.info("{}: {}; {}", stage.name(), firstEvent, result.summary());
    table.add(
        "recovery: " + fault.description() + String.format(" at %,d events/s", rate),
        firstEvent + String.format(", max commit -> Kafka delay %.1f s", maxDelay / 1e3),
        fault.target(),
        String.format(
            "from the end of the fault (the component accepts connections again) to the broker's"
                + " append; %,d events: %d lost, %d duplicates, %d out of order",
            result.expected(), result.lost(), result.duplicates(), result.outOfOrder()));
  }
}
