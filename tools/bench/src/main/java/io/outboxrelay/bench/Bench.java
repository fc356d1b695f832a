package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the benchmarks and prints a table. Usage: {@code Bench [--only group,...] [--events N]
 * [--drain-workers 1,4,8] [--rate R] [--seconds S] [--claim-events N] [--consumer-events N]
 * [--writer-events N] [--writer-rounds R] [--recovery-faults id,...] [--recovery-rate R]
 * [--recovery-seconds S] [--takeovers N] [--binlog-row-image FULL|MINIMAL] [--cdc-starts N]
 * [--big-transaction ROWS] [--relay-env KEY=VALUE] [--profile DIR]}, groups {@link #GROUPS} (all by
 * default). {@code --events} is the relay's backlog (raw, cdc, polling-drain), {@code
 * --drain-workers} the polling drains' worker counts (repeat one to see the spread), {@code --rate}
 * and {@code --seconds} its steady load (cdc, polling-latency). The recovery group injects each
 * fault of {@link RecoveryBench#faults()} (or those named) under {@code --recovery-rate} events/s,
 * with {@code --recovery-seconds} of load before and after it, then kills a CDC leader {@code
 * --takeovers} times (0: not at all) for its standby to take over ({@link TakeoverBench}). The cdc
 * group also starts the relay {@code --cdc-starts} more times on a small backlog (3; 0: none), from
 * the distribution and from its {@code dist.tar.gz} unpacked in the work directory, alternated
 * ({@link CdcStarts}), and writes one transaction of {@code --big-transaction} rows (50,000; 0:
 * none). The writer group ({@link WriterBench}) writes {@code --writer-events} events per variant
 * and round (2,000) for {@code --writer-rounds} rounds (15), on the private MariaDB and the local
 * PostgreSQL; it and the claims group need no broker, and none is started when only they run. The
 * relay is the distribution mvn package builds, or the one named by the environment variable {@code
 * OUTBOX_RELAY_DIST} (an {@code outbox-relay} directory: a saved older build, to run old against
 * new). Run it on a quiet machine: figures of a machine that is also running tests are meaningless.
 */
public final class Bench {

  static final List<String> GROUPS =
      List.of(
          "raw",
          "cdc",
          "polling-drain",
          "polling-latency",
          "claims",
          "idempotency",
          "recovery",
          "writer");

  /** The groups that need no Kafka broker: with only these, none is started. */
  private static final Set<String> WITHOUT_KAFKA = Set.of("claims", "writer");

  private Bench() {}

  public static void main(String[] args) throws Exception {
    Set<String> only = Set.copyOf(GROUPS);
    int events = 100_000;
    List<Integer> drainWorkers = PollingDrainBench.WORKERS;
    int claimEvents = 20_000;
    int consumerEvents = 10_000;
    int writerEvents = 2_000;
    int writerRounds = 15;
    int rate = 2_000;
    int seconds = 30;
    List<RecoveryBench.Fault> recoveryFaults = RecoveryBench.faults();
    int recoveryRate = 1_000;
    int recoverySeconds = 20;
    int takeovers = 5;
    int cdcStarts = 3;
    int bigTransaction = 50_000;
    String rowImage = "FULL";
    Map<String, String> relayEnv = new HashMap<>();
    Map<String, String> relaySettings = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--only" -> only = Set.of(args[++i].split(","));
        case "--events" -> events = Integer.parseInt(args[++i]);
        case "--drain-workers" ->
            drainWorkers = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
        case "--claim-events" -> claimEvents = Integer.parseInt(args[++i]);
        case "--consumer-events" -> consumerEvents = Integer.parseInt(args[++i]);
        case "--writer-events" -> writerEvents = Integer.parseInt(args[++i]);
        case "--writer-rounds" -> writerRounds = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--recovery-faults" -> recoveryFaults = faults(args[++i]);
        case "--recovery-rate" -> recoveryRate = Integer.parseInt(args[++i]);
        case "--recovery-seconds" -> recoverySeconds = Integer.parseInt(args[++i]);
        case "--takeovers" -> takeovers = Integer.parseInt(args[++i]);
        case "--cdc-starts" -> cdcStarts = Integer.parseInt(args[++i]);
        case "--big-transaction" -> bigTransaction = Integer.parseInt(args[++i]);
        case "--binlog-row-image" -> rowImage = args[++i].toUpperCase(java.util.Locale.ROOT);
        case "--relay-heap" -> relayEnv.put("OUTBOX_RELAY_HEAP", args[++i]);
        case "--relay-java-opts" -> relayEnv.put("JAVA_OPTS", args[++i]);
        case "--relay-env" -> {
          String[] kv = args[++i].split("=", 2);
          relayEnv.put(kv[0], kv[1]);
        }
        case "--relay-set" -> {
          String[] kv = args[++i].split("=", 2);
          relaySettings.put(kv[0], kv[1]);
        }
        case "--profile" ->
            relayEnv.put(
                "JAVA_OPTS",
                "-XX:StartFlightRecording=filename="
                    + Path.of(args[++i]).toAbsolutePath()
                    + ",settings=profile");
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (!GROUPS.containsAll(only)) {
      throw new IllegalArgumentException("unknown group in --only " + only + "; groups: " + GROUPS);
    }
    Path work = Files.createTempDirectory("outbox-bench");
    ResultTable table = new ResultTable();
    boolean kafkaNeeded = !WITHOUT_KAFKA.containsAll(only);
    System.err.println(
        "starting the local stack (private MariaDB with binlog"
            + (kafkaNeeded ? ", KRaft broker" : "")
            + ")...");
    try (MariaDbServer mariaDb =
            MariaDbServer.builder().bufferPoolSize("512M").binlogRowImage(rowImage).start();
        KafkaBroker kafka = kafkaNeeded ? KafkaBroker.builder().heap("768m").start() : null) {
      BenchEnv env = new BenchEnv(mariaDb, kafka, work, relayEnv, relaySettings);
      if (only.contains("raw")) {
        System.err.println("raw KafkaProducer baseline...");
        RawProducerBench.run(kafka.bootstrapServers(), events, table);
      }
      if (only.contains("cdc")) {
        Quiet.await(mariaDb, "cdc");
        System.err.println("CDC: backlog drain, steady-state latency, RSS and CPU...");
        new CdcBench(env)
            .run(table, events, rate, Duration.ofSeconds(seconds), cdcStarts, bigTransaction);
      }
      if (only.contains("polling-drain")) {
        Quiet.await(mariaDb, "polling-drain");
        System.err.println("polling: backlog drain with " + drainWorkers + " workers...");
        new PollingDrainBench(env, drainWorkers).run(table, events);
      }
      if (only.contains("polling-latency")) {
        Quiet.await(mariaDb, "polling-latency");
        System.err.println("polling: steady-state latency with 4 workers...");
        new PollingLatencyBench(env).run(table, rate, Duration.ofSeconds(seconds));
      }
      if (only.contains("claims")) {
        Quiet.await(mariaDb, "claims");
        System.err.println("claim strategies: naive vs SKIP LOCKED, 20 workers, no Kafka...");
        new ClaimBench(mariaDb).run(table, claimEvents);
      }
      if (only.contains("recovery")) {
        System.err.println("recovery: faults under a steady load, each on its own MariaDB...");
        new RecoveryBench(env)
            .run(table, recoveryFaults, recoveryRate, Duration.ofSeconds(recoverySeconds));
        if (takeovers > 0) {
          System.err.println("recovery: CDC leader killed, standby takes over...");
          new TakeoverBench(env)
              .run(table, takeovers, recoveryRate, Duration.ofSeconds(recoverySeconds));
        }
      }
      if (only.contains("idempotency")) {
        Quiet.await(mariaDb, "idempotency");
        System.err.println("consumers: idempotent vs plain, same business write...");
        new IdempotencyBench(mariaDb, kafka).run(table, consumerEvents);
      }
      if (only.contains("writer")) {
        Quiet.await(mariaDb, "writer");
        System.err.println("application side: outbox writer vs hand-written INSERT...");
        new WriterBench(mariaDb, writerEvents, writerRounds).run(table);
      }
    }
    print(table, work, kafkaNeeded);
  }

  /** The faults named in {@code --recovery-faults}: ids, or {@code none} for only the takeovers. */
  private static List<RecoveryBench.Fault> faults(String arg) {
    Set<String> ids = Set.of(arg.split(","));
    List<RecoveryBench.Fault> faults =
        RecoveryBench.faults().stream().filter(f -> ids.contains(f.id())).toList();
    if (!ids.equals(Set.of("none")) && faults.size() != ids.size()) {
      throw new IllegalArgumentException(
          "unknown fault in --recovery-faults "
              + ids
              + "; faults: "
              + RecoveryBench.faults().stream().map(RecoveryBench.Fault::id).toList());
    }
    return faults;
  }

  private static void print(ResultTable table, Path work, boolean relayGroups) {
    System.out.println();
    System.out.println(
        "outbox-relay benchmark, "
            + Runtime.getRuntime().availableProcessors()
            + " cores, MariaDB, Kafka and the relay on one machine");
    System.out.println(table.render());
    if (relayGroups) { // claims and writer run no relay, and need no distribution
      System.err.println("relay: " + ProjectFiles.relayLauncher());
      System.err.println("relay logs: " + work);
    }
  }
}
