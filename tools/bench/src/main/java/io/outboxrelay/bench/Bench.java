package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Runs the benchmarks and prints a table. Usage: {@code Bench [--only group,...] [--events N]
 * [--drain-workers 1,4,8] [--rate R] [--seconds S] [--claim-events N] [--consumer-events N]
 * [--writer-events N] [--writer-rounds R] [--recovery-faults id,...] [--recovery-rate R]
 * [--recovery-seconds S] [--takeovers N] [--handoffs true|false] [--handoff-rate R]
 * [--binlog-row-image FULL|MINIMAL] [--cdc-starts N] [--big-transaction ROWS] [--headers N]
 * [--peers relay,connect,server] [--peer-rounds N] [--connect-heap SIZE] [--connect-set KEY=VALUE]
 * [--server-version V] [--server-java JDK] [--server-heap SIZE] [--server-set KEY=VALUE]
 * [--relay-env KEY=VALUE] [--relay-set KEY=VALUE] [--profile DIR] [--switch-flush-ms
 * 1000,10000,60000] [--switch-rate 200] [--switch-seconds 10] [--guarantees
 * at-least-once,exactly-once] [--guarantee-rounds N] [--guarantee-fault-runs N] [--pin-minutes M |
 * --pin-seconds S] [--pin-kind snapshot|write] [--pin-runs unpinned,pinned] [--sample-seconds S]
 * [--vacuum-stand-in true|false] [--help]}, groups {@link #GROUPS} (all by default). {@code
 * --events} is the relay's backlog (raw, cdc, polling-drain, peers), {@code --drain-workers} the
 * polling drains' worker counts (repeat one to see the spread), {@code --rate} and {@code
 * --seconds} its steady load (cdc, polling-latency, peers). The recovery group injects each fault
 * of {@link RecoveryBench#faults()} (or those named) under {@code --recovery-rate} events/s, with
 * {@code --recovery-seconds} of load before and after it, then kills a CDC leader {@code
 * --takeovers} times (0: not at all) for its standby to take over ({@link TakeoverBench}). The cdc
 * group also starts the relay {@code --cdc-starts} more times on a small backlog (3; 0: none), from
 * the distribution and from its {@code dist.tar.gz} unpacked in the work directory, alternated
 * ({@link CdcStarts}), and writes one transaction of {@code --big-transaction} rows (50,000; 0:
 * none). With {@code --headers N} (0: off) it then drains the same backlog twice more, without
 * application headers and with N per event, a traceparent among them, and shows the two rows
 * ({@link CdcHeadersDrain}). The writer group ({@link WriterBench}) writes {@code --writer-events}
 * events per variant and round (2,000) for {@code --writer-rounds} rounds (15), on the private
 * MariaDB and the local PostgreSQL; it and the claims group need no broker, and none is started
 * when only they run. The peers group ({@link PeerBench}) runs the relay and the pipelines a user
 * would pick instead ({@code --peers}, all by default) on the same rows, {@code --peer-rounds}
 * times each, alternated (2), the Connect worker with {@code -Xmx} {@code --connect-heap} (1g) and
 * its connector's settings changed by {@code --connect-set}, Debezium Server {@code
 * --server-version} ({@link ServerDistribution#DEFAULT_VERSION}, downloaded once into {@code
 * ~/.cache/outbox-relay-bench}) on the Java runtime {@code --server-java} (else one of 21 or newer
 * found in /usr/lib/jvm) with {@code -Xmx} {@code --server-heap} (1g) and its {@code
 * application.properties} entries changed by {@code --server-set}, and prints them side by side.
 * The pg-cdc group ({@link PgCdcBench}) does the same on a private PostgreSQL for the relay's CDC
 * there and Debezium Server's PostgreSQL connector ({@code --peers}, the two by default), with a
 * smoke run's backlog and load unless {@code --events} and {@code --seconds} are given ({@link
 * PgCdcBench#DEFAULT_EVENTS}, {@link PgCdcBench#DEFAULT_SECONDS}), and checks its targets. The
 * relay is the distribution mvn package builds, or the one named by the environment variable {@code
 * OUTBOX_RELAY_DIST} (an {@code outbox-relay} directory: a saved older build, to run old against
 * new). The exactly-once group ({@link GuaranteeBench}) runs the relay with each {@code
 * --guarantees} (both by default) {@code --guarantee-rounds} times (4), alternated: a drain of
 * {@code --events}, then {@code --rate} for {@code --seconds}, read by a {@code read_committed}
 * consumer; then {@code --guarantee-fault-runs} fault runs per guarantee (1; 0: none) at {@code
 * --recovery-rate} with {@code --recovery-seconds} of load around each fault ({@link
 * GuaranteeFaultRun}), and prints a table of its own ({@link GuaranteeTable}). The pinned-xmin
 * group ({@link PinnedXminBench}) runs polling mode on the local PostgreSQL at {@code --rate}
 * events/s (1,000 unless given) for {@code --pin-minutes} (10; fractions allowed) or {@code
 * --pin-seconds}, once without and once with a REPEATABLE READ transaction held open, sampling
 * every {@code --sample-seconds} (10), with a stand-in for autovacuum when the server's is off
 * ({@code --vacuum-stand-in}, true), and prints a table of its own ({@link PinnedXminTable}). Run
 * it on a quiet machine: figures of a machine that is also running tests are meaningless.
 */
public final class Bench {

  static final List<String> GROUPS =
      List.of(
          "raw",
          "cdc",
          "polling-drain",
          "polling-latency",
          "claims",
          "gap-locks",
          "idempotency",
          "recovery",
          "writer",
          "peers",
          "pg-cdc",
          "switch",
          "exactly-once",
          "pinned-xmin");

  private static final String USAGE =
      "Usage: Bench [--only group,...] [options]\n"
          + "groups: "
          + String.join(", ", GROUPS)
          + " (all by default)\n"
          + "common: --events N (100000) --rate R (2000) --seconds S (30) --relay-set KEY=VALUE"
          + " --relay-env KEY=VALUE --relay-heap SIZE --relay-java-opts OPTS --profile DIR\n"
          + "cdc: --cdc-starts N (3) --big-transaction ROWS (50000) --headers N (0)"
          + " --binlog-row-image FULL|MINIMAL\n"
          + "polling-drain: --drain-workers 1,4,8; claims: --claim-events N; gap-locks: --rate,"
          + " --seconds; idempotency:"
          + " --consumer-events N; writer: --writer-events N --writer-rounds R\n"
          + "recovery: --recovery-faults id,...|none --recovery-rate R (1000) --recovery-seconds S"
          + " (20) --takeovers N (5) --handoffs true|false --handoff-rate R (400)\n"
          + "peers: --peers relay,connect,server --peer-rounds N (2) --connect-heap SIZE"
          + " --connect-set KEY=VALUE --server-version V --server-java JDK --server-heap SIZE"
          + " --server-set KEY=VALUE\n"
          + "pg-cdc (PostgreSQL): --events N (2000 for this group unless given) --seconds S (5"
          + " unless given) --rate R --peers relay,server --peer-rounds N and the server options"
          + " of peers\n"
          + "switch: --switch-flush-ms 1000,10000,60000 --switch-rate R (200) --switch-seconds S"
          + " (10)\n"
          + "exactly-once: --guarantees at-least-once,exactly-once --guarantee-rounds N (4)"
          + " --guarantee-fault-runs N (1); also --events, --rate, --seconds, --recovery-rate,"
          + " --recovery-seconds\n"
          + "pinned-xmin (PostgreSQL): --rate R (1000 for this group) --pin-minutes M (10; fractions"
          + " allowed) or --pin-seconds S --pin-kind snapshot|write (snapshot: a read-only"
          + " REPEATABLE READ transaction; write: one that also wrote another table) --pin-runs"
          + " unpinned,pinned --sample-seconds S (10) --vacuum-stand-in true|false"
          + " (true)\n"
          + "See the Javadoc of io.outboxrelay.bench.Bench and docs/benchmarks.md.";

  /** The groups that need no Kafka broker: with only these, none is started. */
  private static final Set<String> WITHOUT_KAFKA = Set.of("claims", "writer");

  private Bench() {}

  /**
   * The prefix of system properties passed to the broker, e.g. {@code
   * -D<prefix>log.flush.interval.messages=1}.
   */
  static final String BROKER_PROPERTY_PREFIX = "outbox.bench.broker.";

  /**
   * The bench's broker: 768 MiB of heap, and every system property named {@link
   * #BROKER_PROPERTY_PREFIX}{@code <key>} as broker setting {@code <key>} (a broker that flushes
   * each append, for instance, to see what slower appends and commits cost).
   */
  private static KafkaBroker.Builder broker() {
    KafkaBroker.Builder b = KafkaBroker.builder().heap("768m");
    // Kafka's defaults for what the test brokers trim to save CPU: the peers are measured on the
    // broker a production cluster would have.
    b.brokerProperty("offsets.topic.num.partitions", "50");
    b.brokerProperty("transaction.state.log.num.partitions", "50");
    b.brokerProperty("share.coordinator.state.topic.num.partitions", "50");
    b.brokerProperty("metadata.max.idle.interval.ms", "500");
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(BROKER_PROPERTY_PREFIX)) {
        String key = name.substring(BROKER_PROPERTY_PREFIX.length());
        System.err.println("broker setting " + key + "=" + System.getProperty(name));
        b.brokerProperty(key, System.getProperty(name));
      }
    }
    return b;
  }

  public static void main(String[] args) throws Exception {
    BenchOptions o = BenchOptions.parse(args);
    if (o.help) {
      System.out.println(USAGE);
      return;
    }
    Path work = Files.createTempDirectory("outbox-bench");
    ResultTable table = new ResultTable();
    PeerTable peers = new PeerTable();
    PeerTable pgCdc =
        new PeerTable("PostgreSQL CDC (pg-cdc): the relay beside Debezium Server, same rows");
    GuaranteeTable guarantees = new GuaranteeTable();
    PinnedXminTable pinnedXmin = new PinnedXminTable();
    boolean kafkaNeeded = !WITHOUT_KAFKA.containsAll(o.only);
    System.err.println(
        "starting the local stack (private MariaDB with binlog"
            + (kafkaNeeded ? ", KRaft broker" : "")
            + ")...");
    try (MariaDbServer mariaDb =
            MariaDbServer.builder().bufferPoolSize("512M").binlogRowImage(o.rowImage).start();
        KafkaBroker kafka = kafkaNeeded ? broker().start() : null) {
      BenchEnv env = new BenchEnv(mariaDb, kafka, work, o.relayEnv, o.relaySettings);
      runThroughputGroups(o, env, table);
      runRecoveryAndApplicationGroups(o, env, table);
      if (o.only.contains("peers")) {
        Quiet.await(mariaDb, "peers");
        System.err.println(
            "peers: " + o.peers.stream().map(Peer::label).toList() + " on the same rows...");
        new PeerBench(env, o.peerOptions(), new MariaDbPeerSource(mariaDb))
            .run(peers, o.peers, o.peerRounds, o.events, o.rate, Duration.ofSeconds(o.seconds));
      }
      if (o.only.contains("pg-cdc")) {
        System.err.println(
            "pg-cdc: "
                + o.pgCdcPeers().stream().map(Peer::label).toList()
                + " on a private PostgreSQL, same rows...");
        new PgCdcBench(env, o.peerOptions())
            .run(
                pgCdc,
                o.pgCdcPeers(),
                o.peerRounds,
                o.pgCdcEvents(),
                o.rate,
                Duration.ofSeconds(o.pgCdcSeconds()));
      }
      if (o.only.contains("switch")) {
        System.err.println("switch: Kafka Connect to the relay with position import...");
        new SwitchBench(env)
            .run(table, o.switchFlushMs, o.switchRate, Duration.ofSeconds(o.switchSeconds));
      }
      if (o.only.contains("exactly-once")) {
        System.err.println(
            "exactly-once: " + o.guarantees + ", alternated rounds and fault runs...");
        new GuaranteeBench(env)
            .run(
                guarantees,
                o.guarantees,
                o.guaranteeRounds,
                o.events,
                o.rate,
                Duration.ofSeconds(o.seconds),
                o.guaranteeFaultRuns,
                o.recoveryRate,
                Duration.ofSeconds(o.recoverySeconds));
      }
      if (o.only.contains("pinned-xmin")) {
        System.err.println("pinned-xmin: polling on PostgreSQL, unpinned and pinned xmin...");
        new PinnedXminBench(env)
            .run(
                pinnedXmin,
                o.pinnedXminRate(),
                o.pinLoad,
                Duration.ofSeconds(o.sampleSeconds),
                o.vacuumStandIn,
                o.pinWrites,
                o.pinRuns);
      }
    }
    print(table, List.of(peers, pgCdc), guarantees, pinnedXmin, work, kafkaNeeded);
  }

  /** The throughput groups: the raw producer, CDC, polling, claim strategies. */
  private static void runThroughputGroups(BenchOptions o, BenchEnv env, ResultTable table)
      throws Exception {
    MariaDbServer mariaDb = env.mariaDb();
    if (o.only.contains("raw")) {
      System.err.println("raw KafkaProducer baseline...");
      RawProducerBench.run(env.bootstrapServers(), o.events, table);
    }
    if (o.only.contains("cdc")) {
      Quiet.await(mariaDb, "cdc");
      System.err.println("CDC: backlog drain, steady-state latency, RSS and CPU...");
      new CdcBench(env)
          .run(
              table,
              o.events,
              o.rate,
              Duration.ofSeconds(o.seconds),
              o.cdcStarts,
              o.bigTransaction);
      if (o.headers > 0) {
        Quiet.await(mariaDb, "cdc headers");
        System.err.println("CDC: backlog drain without and with " + o.headers + " headers...");
        new CdcHeadersDrain(env).run(table, o.events, o.headers);
      }
    }
    if (o.only.contains("polling-drain")) {
      Quiet.await(mariaDb, "polling-drain");
      System.err.println("polling: backlog drain with " + o.drainWorkers + " workers...");
      new PollingDrainBench(env, o.drainWorkers).run(table, o.events);
    }
    if (o.only.contains("polling-latency")) {
      Quiet.await(mariaDb, "polling-latency");
      System.err.println("polling: steady-state latency with 4 workers...");
      new PollingLatencyBench(env).run(table, o.rate, Duration.ofSeconds(o.seconds));
    }
    if (o.only.contains("gap-locks")) {
      Quiet.await(mariaDb, "gap-locks");
      System.err.println("gap locks: polling with 20 workers beside application inserts...");
      new GapLockBench(env).run(table, o.rate, Duration.ofSeconds(o.seconds));
    }
    if (o.only.contains("claims")) {
      Quiet.await(mariaDb, "claims");
      System.err.println("claim strategies: naive vs SKIP LOCKED, 20 workers, no Kafka...");
      new ClaimBench(mariaDb).run(table, o.claimEvents);
    }
  }

  /** Recovery from faults, then the consumers and the application-side writer. */
  private static void runRecoveryAndApplicationGroups(
      BenchOptions o, BenchEnv env, ResultTable table) throws Exception {
    MariaDbServer mariaDb = env.mariaDb();
    if (o.only.contains("recovery")) {
      System.err.println("recovery: faults under a steady load, each on its own MariaDB...");
      new RecoveryBench(env)
          .run(table, o.recoveryFaults, o.recoveryRate, Duration.ofSeconds(o.recoverySeconds));
      if (o.takeovers > 0) {
        System.err.println("recovery: CDC leader killed, standby takes over...");
        new TakeoverBench(env)
            .run(table, o.takeovers, o.recoveryRate, Duration.ofSeconds(o.recoverySeconds));
      }
      if (o.handoffs) {
        System.err.println("recovery: hand-offs while the application holds transactions open...");
        new HandoffBench(env).run(table, o.handoffRate, Duration.ofSeconds(o.recoverySeconds));
      }
    }
    if (o.only.contains("idempotency")) {
      Quiet.await(mariaDb, "idempotency");
      System.err.println("consumers: idempotent vs plain, same business write...");
      new IdempotencyBench(mariaDb, env.kafka()).run(table, o.consumerEvents);
    }
    if (o.only.contains("writer")) {
      Quiet.await(mariaDb, "writer");
      System.err.println("application side: outbox writer vs hand-written INSERT...");
      new WriterBench(mariaDb, o.writerEvents, o.writerRounds).run(table);
    }
  }

  private static void print(
      ResultTable table,
      List<PeerTable> peerTables,
      GuaranteeTable guarantees,
      PinnedXminTable pinnedXmin,
      Path work,
      boolean relayGroups) {
    System.out.println();
    System.out.println(
        "outbox-relay benchmark, "
            + Runtime.getRuntime().availableProcessors()
            + " cores, MariaDB, Kafka and the relay on one machine");
    if (!table.isEmpty()) {
      System.out.println(table.render());
    }
    for (PeerTable peers : peerTables) {
      if (!peers.isEmpty()) {
        System.out.println(peers.render());
      }
    }
    if (!guarantees.isEmpty()) {
      System.out.println(guarantees.render());
    }
    if (!pinnedXmin.isEmpty()) {
      System.out.println(pinnedXmin.render());
    }
    if (relayGroups) { // claims and writer run no relay, and need no distribution
      System.err.println("relay: " + ProjectFiles.relayLauncher());
      System.err.println("relay logs: " + work);
    }
  }
}
