package io.outboxrelay.bench;

import io.outboxrelay.relay.config.DeliveryGuarantee;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark's command line, parsed once (see {@link Bench} for what each option does). Not
 * thread-safe; read-only after {@link #parse}.
 */
final class BenchOptions {

  Set<String> only = Set.copyOf(Bench.GROUPS);
  int events = 100_000;
  boolean eventsGiven;
  List<Integer> drainWorkers = PollingDrainBench.WORKERS;
  int claimEvents = 20_000;
  int consumerEvents = 10_000;
  int writerEvents = 2_000;
  int writerRounds = 15;
  int rate = 2_000;
  boolean rateGiven;
  int seconds = 30;
  boolean secondsGiven;
  List<RecoveryBench.Fault> recoveryFaults = RecoveryBench.faults();
  int recoveryRate = 1_000;
  int recoverySeconds = 20;
  int takeovers = 5;
  int handoffRate = 400;
  boolean handoffs = true;
  int cdcStarts = 3;
  int bigTransaction = 50_000;
  int headers;
  String rowImage = "FULL";
  List<Peer> peers = Peer.ALL;
  boolean peersGiven;
  int peerRounds = 2;
  String connectHeap = "1g";
  List<Long> switchFlushMs = List.of(1_000L, 10_000L, 60_000L);
  int switchRate = 200;
  int switchSeconds = 10;
  List<DeliveryGuarantee> guarantees =
      List.of(DeliveryGuarantee.AT_LEAST_ONCE, DeliveryGuarantee.EXACTLY_ONCE);
  int guaranteeRounds = 4;
  int guaranteeFaultRuns = 1;
  Duration pinLoad = PinnedXminBench.DEFAULT_LOAD;
  boolean pinWrites;
  List<Boolean> pinRuns = List.of(false, true);
  int sampleSeconds = 10;
  boolean vacuumStandIn = true;
  boolean help;
  String serverVersion = ServerDistribution.DEFAULT_VERSION;
  Path serverJava;
  String serverHeap = "1g";
  final Map<String, String> relayEnv = new HashMap<>();
  final Map<String, String> relaySettings = new HashMap<>();
  final Map<String, String> connectSettings = new HashMap<>();
  final Map<String, String> serverSettings = new HashMap<>();

  private BenchOptions() {}

  /** The pinned-xmin group's rate: {@code --rate} when given, else its own default. */
  int pinnedXminRate() {
    return rateGiven ? rate : PinnedXminBench.DEFAULT_RATE;
  }

  /** The pg-cdc group's backlog: {@code --events} when given, else a smoke run's. */
  int pgCdcEvents() {
    return eventsGiven ? events : PgCdcBench.DEFAULT_EVENTS;
  }

  /**
   * The pg-cdc group's seconds of steady load: {@code --seconds} when given, else a smoke run's.
   */
  int pgCdcSeconds() {
    return secondsGiven ? seconds : PgCdcBench.DEFAULT_SECONDS;
  }

  /** The pg-cdc group's pipelines: {@code --peers} when given, else the relay and the server. */
  List<Peer> pgCdcPeers() {
    return peersGiven ? peers : PgCdcBench.DEFAULT_PEERS;
  }

  /** The peers group's settings of the pipelines beside the relay. */
  PeerOptions peerOptions() {
    return new PeerOptions(
        connectHeap, connectSettings, serverVersion, serverJava, serverHeap, serverSettings);
  }

  /**
   * @throws IllegalArgumentException on an unknown option, group, fault or pipeline
   */
  static BenchOptions parse(String[] args) {
    BenchOptions o = new BenchOptions();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--help") || args[i].equals("-h")) {
        o.help = true;
        return o;
      }
      String value = i + 1 < args.length ? args[i + 1] : null;
      if (!o.set(args[i], value)) {
        throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++; // every option takes a value
    }
    if (!Bench.GROUPS.containsAll(o.only)) {
      throw new IllegalArgumentException(
          "unknown group in --only " + o.only + "; groups: " + Bench.GROUPS);
    }
    return o;
  }

  private boolean set(String option, String value) {
    if (value == null) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    switch (option) {
      case "--only" -> only = Set.of(value.split(","));
      case "--events" -> {
        events = positive(option, value);
        eventsGiven = true;
      }
      case "--drain-workers" ->
          drainWorkers = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
      case "--claim-events" -> claimEvents = Integer.parseInt(value);
      case "--consumer-events" -> consumerEvents = Integer.parseInt(value);
      case "--writer-events" -> writerEvents = Integer.parseInt(value);
      case "--writer-rounds" -> writerRounds = Integer.parseInt(value);
      case "--rate" -> {
        rate = Integer.parseInt(value);
        rateGiven = true;
      }
      case "--seconds" -> {
        seconds = Integer.parseInt(value);
        secondsGiven = true;
      }
      case "--recovery-faults" -> recoveryFaults = faults(value);
      case "--recovery-rate" -> recoveryRate = Integer.parseInt(value);
      case "--recovery-seconds" -> recoverySeconds = Integer.parseInt(value);
      case "--takeovers" -> takeovers = Integer.parseInt(value);
      case "--handoff-rate" -> handoffRate = Integer.parseInt(value);
      case "--handoffs" -> handoffs = Boolean.parseBoolean(value);
      case "--cdc-starts" -> cdcStarts = Integer.parseInt(value);
      case "--big-transaction" -> bigTransaction = Integer.parseInt(value);
      case "--headers" -> headers = nonNegative(option, value);
      case "--binlog-row-image" -> rowImage = value.toUpperCase(Locale.ROOT);
      case "--peers" -> {
        peers = Peer.named(value);
        peersGiven = true;
      }
      case "--peer-rounds" -> peerRounds = Integer.parseInt(value);
      case "--connect-heap" -> connectHeap = value;
      case "--connect-set" -> put(connectSettings, value);
      case "--server-version" -> serverVersion = value;
      case "--server-java" -> serverJava = Path.of(value);
      case "--server-heap" -> serverHeap = value;
      case "--server-set" -> put(serverSettings, value);
      case "--relay-heap" -> relayEnv.put("OUTBOX_RELAY_HEAP", value);
      case "--relay-java-opts" -> relayEnv.put("JAVA_OPTS", value);
      case "--relay-env" -> put(relayEnv, value);
      case "--relay-set" -> put(relaySettings, value);
      case "--switch-flush-ms" ->
          switchFlushMs = java.util.Arrays.stream(value.split(",")).map(Long::valueOf).toList();
      case "--switch-rate" -> switchRate = Integer.parseInt(value);
      case "--switch-seconds" -> switchSeconds = Integer.parseInt(value);
      case "--guarantees" -> guarantees = guarantees(value);
      case "--pin-minutes" -> pinLoad = wholeSeconds(option, Double.parseDouble(value) * 60);
      case "--pin-seconds" -> pinLoad = wholeSeconds(option, Integer.parseInt(value));
      case "--pin-kind" -> pinWrites = pinKind(option, value);
      case "--pin-runs" -> pinRuns = pinRuns(option, value);
      case "--sample-seconds" -> sampleSeconds = positive(option, value);
      case "--vacuum-stand-in" -> vacuumStandIn = Boolean.parseBoolean(value);
      case "--guarantee-rounds" -> guaranteeRounds = positive(option, value);
      case "--guarantee-fault-runs" -> guaranteeFaultRuns = nonNegative(option, value);
      case "--profile" ->
          relayEnv.put(
              "JAVA_OPTS",
              "-XX:StartFlightRecording=filename="
                  + Path.of(value).toAbsolutePath()
                  + ",settings=profile");
      default -> {
        return false;
      }
    }
    return true;
  }

  private static int nonNegative(String option, String value) {
    int n = Integer.parseInt(value);
    if (n < 0) {
      throw new IllegalArgumentException(option + " must be 0 or more, got " + value);
    }
    return n;
  }

  /** A load of at least one second, rounded to whole seconds (SteadyLoad's unit). */
  private static Duration wholeSeconds(String option, double seconds) {
    long s = Math.round(seconds);
    if (s < 1) {
      throw new IllegalArgumentException(
          option + " must come to 1 s or more, got " + seconds + " s");
    }
    return Duration.ofSeconds(s);
  }

  private static int positive(String option, String value) {
    int n = Integer.parseInt(value);
    if (n < 1) {
      throw new IllegalArgumentException(option + " must be 1 or more, got " + value);
    }
    return n;
  }

  /** The guarantees named in {@code --guarantees}, as {@code delivery.guarantee} spells them. */
  static List<DeliveryGuarantee> guarantees(String arg) {
    List<DeliveryGuarantee> named = new java.util.ArrayList<>();
    for (String name : arg.split(",")) {
      DeliveryGuarantee g =
          Arrays.stream(DeliveryGuarantee.values())
              .filter(d -> GuaranteeBench.configName(d).equals(name.trim()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "unknown guarantee in --guarantees: "
                              + name
                              + "; guarantees: at-least-once, exactly-once"));
      if (!named.contains(g)) {
        named.add(g);
      }
    }
    return List.copyOf(named);
  }

  private static void put(Map<String, String> into, String keyValue) {
    String[] kv = keyValue.split("=", 2);
    if (kv.length != 2) {
      throw new IllegalArgumentException("expected KEY=VALUE, got " + keyValue);
    }
    into.put(kv[0], kv[1]);
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

  /** {@code --pin-kind}: {@code snapshot} (a read-only report) or {@code write} (a batch job). */
  private static boolean pinKind(String option, String value) {
    return switch (value) {
      case "snapshot" -> false;
      case "write" -> true;
      default -> throw new IllegalArgumentException(option + " is snapshot or write: " + value);
    };
  }

  /** {@code --pin-runs}: which of {@code unpinned} and {@code pinned} to run, in order. */
  private static List<Boolean> pinRuns(String option, String value) {
    List<Boolean> runs = new java.util.ArrayList<>();
    for (String run : value.split(",")) {
      switch (run.trim()) {
        case "unpinned" -> runs.add(false);
        case "pinned" -> runs.add(true);
        default ->
            throw new IllegalArgumentException(option + " lists unpinned and pinned: " + value);
      }
    }
    return List.copyOf(runs);
  }
}
