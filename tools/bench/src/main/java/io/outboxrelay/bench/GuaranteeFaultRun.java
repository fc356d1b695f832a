package io.outboxrelay.bench;

import io.outboxrelay.relay.config.DeliveryGuarantee;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once group's fault run for one {@code delivery.guarantee}: a lone relay under a
 * steady load goes through {@value #KILLS} kills (SIGKILL, started again at once), a broker stop of
 * 10 s, a MariaDB kill of 5 s and a 30 s freeze (SIGSTOP) of the relay, one after the other with
 * load between them, on a {@link FaultStage} of its own (a MariaDB of its own; the broker is the
 * bench's). Then every event is checked by id and per-aggregate order as a {@code read_committed}
 * consumer reads the topics ({@link io.outboxrelay.testsupport.stack.TopicReader}'s default), and
 * once more as a {@code read_uncommitted} one does; the duplicates are attributed to the fault
 * after whose start their second copy was appended. Not thread-safe.
 */
final class GuaranteeFaultRun {

  private static final Logger LOG = LoggerFactory.getLogger(GuaranteeFaultRun.class);

  /** How many times the relay is killed. */
  static final int KILLS = 4;

  private final BenchEnv env;

  GuaranteeFaultRun(BenchEnv env) {
    this.env = env;
  }

  /**
   * What one fault run found.
   *
   * @param guarantee the relay's guarantee
   * @param run 1, 2, ...
   * @param committed the ledger's check of what a read_committed consumer reads
   * @param uncommitted the ledger's check of what a read_uncommitted consumer reads
   * @param duplicatesByFault read_committed duplicates by the fault after which they were appended
   */
  record Result(
      DeliveryGuarantee guarantee,
      int run,
      Ledger.Result committed,
      Ledger.Result uncommitted,
      Map<String, Integer> duplicatesByFault) {}

  /** The faults, in order, by label. */
  static Map<String, RecoveryBench.Fault> faults() {
    Map<String, RecoveryBench.Fault> faults = new LinkedHashMap<>();
    for (int k = 1; k <= KILLS; k++) {
      faults.put("kill -9 #" + k, RelayFaults.kill());
    }
    faults.put("broker stopped 10 s", BrokerFaults.stop(false, Duration.ofSeconds(10)));
    faults.put("MariaDB killed, 5 s down", CdcDatabaseFaults.kill(Duration.ofSeconds(5)));
    faults.put("relay SIGSTOP 30 s", RelayFaults.freeze(Duration.ofSeconds(30)));
    return faults;
  }

  /**
   * @param rate events per second the application writes
   * @param gap load before the first fault, after each and after the last
   */
  Result run(DeliveryGuarantee guarantee, int run, int rate, Duration gap) throws Exception {
    String name =
        "bench-eosf-"
            + (guarantee == DeliveryGuarantee.EXACTLY_ONCE ? "eo" : "alo")
            + run
            + "-"
            + Long.toHexString(System.nanoTime() & 0xffff);
    String bootstrap = env.bootstrapServers();
    Map<String, Long> begins = new LinkedHashMap<>();
    try (FaultStage stage =
        FaultStage.open(env, name, db -> GuaranteeBench.settings(guarantee, db, bootstrap, name))) {
      try {
        stage.startRelay(1).awaitReady();
        try (SteadyWriter writer = stage.startWriter(rate)) {
          Thread.sleep(gap.toMillis());
          for (Map.Entry<String, RecoveryBench.Fault> f : faults().entrySet()) {
            System.err.println("    " + f.getKey() + "...");
            RecoveryBench.World world =
                new RecoveryBench.World(
                    stage.mariaDb(), env.kafka(), stage.db(), stage.relays(), stage::startRelay);
            begins.put(f.getKey(), System.currentTimeMillis());
            f.getValue().begin(world);
            f.getValue().end(world);
            Thread.sleep(gap.toMillis());
          }
          writer.stop(Duration.ofSeconds(120));
        }
        stage.reader().readUntil(stage.ledger()::allArrived, Duration.ofSeconds(180));
      } finally {
        stage.stopRelays();
      }
      List<ConsumedRecord> committed =
          stage.reader().readAll(Duration.ofSeconds(3), Duration.ofSeconds(180));
      List<ConsumedRecord> uncommitted =
          stage
              .reader()
              .includingUncommitted()
              .readAll(Duration.ofSeconds(3), Duration.ofSeconds(180));
      Result result =
          new Result(
              guarantee,
              run,
              stage.ledger().check(committed),
              stage.ledger().check(uncommitted),
              duplicatesByFault(committed, begins));
      LOG.info(
          "{}: read_committed {}; read_uncommitted {}; duplicates by fault {}",
          name,
          result.committed().summary(),
          result.uncommitted().summary(),
          result.duplicatesByFault());
      return result;
    }
  }

  /**
   * The records beyond the first of their event, by the last fault that began before the copy's
   * append time ({@code before the faults} when none).
   */
  static Map<String, Integer> duplicatesByFault(
      List<ConsumedRecord> records, Map<String, Long> begins) {
    List<ConsumedRecord> byAppend = new ArrayList<>(records);
    byAppend.sort(Comparator.comparingLong(ConsumedRecord::timestamp));
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("before the faults", 0);
    begins.keySet().forEach(k -> counts.put(k, 0));
    Set<String> seen = new HashSet<>();
    for (ConsumedRecord r : byAppend) {
      if (seen.add(r.header("id"))) {
        continue;
      }
      String phase = "before the faults";
      for (Map.Entry<String, Long> b : begins.entrySet()) {
        if (b.getValue() <= r.timestamp()) {
          phase = b.getKey();
        }
      }
      counts.merge(phase, 1, Integer::sum);
    }
    return counts;
  }
}
