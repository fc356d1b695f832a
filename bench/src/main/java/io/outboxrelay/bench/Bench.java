package io.outboxrelay.bench;

import io.outboxrelay.localstack.KafkaBroker;
import io.outboxrelay.localstack.MariaDbServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Runs the benchmarks and prints a table. Usage: {@code Bench [--only raw,cdc] [--events N] [--rate
 * R] [--seconds S] [--profile DIR]}. Run it on a quiet machine: figures of a machine that is also
 * running tests are meaningless.
 */
public final class Bench {

  private Bench() {}

  public static void main(String[] args) throws Exception {
    Set<String> only = Set.of("raw", "cdc");
    int events = 100_000;
    int rate = 2_000;
    int seconds = 30;
    Map<String, String> relayEnv = new HashMap<>();
    Map<String, String> relaySettings = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--only" -> only = Set.of(args[++i].split(","));
        case "--events" -> events = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--relay-heap" -> relayEnv.put("OUTBOX_RELAY_HEAP", args[++i]);
        case "--relay-java-opts" -> relayEnv.put("JAVA_OPTS", args[++i]);
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
    Path work = Files.createTempDirectory("outbox-bench");
    ResultTable table = new ResultTable();
    System.err.println("starting the local stack (private MariaDB with binlog, KRaft broker)...");
    try (MariaDbServer mariaDb = MariaDbServer.builder().bufferPoolSize("512M").start();
        KafkaBroker kafka = KafkaBroker.builder().heap("768m").start()) {
      if (only.contains("raw")) {
        System.err.println("raw KafkaProducer baseline...");
        RawProducerBench.run(kafka.bootstrapServers(), events, table);
      }
      if (only.contains("cdc")) {
        System.err.println("CDC: backlog drain, steady-state latency, RSS and CPU...");
        new CdcBench(mariaDb, kafka, work, relayEnv, relaySettings)
            .run(table, events, rate, Duration.ofSeconds(seconds));
      }
    }
    System.out.println();
    System.out.println(
        "outbox-relay benchmark, "
            + Runtime.getRuntime().availableProcessors()
            + " cores, MariaDB, Kafka and the relay on one machine");
    System.out.println(table.render());
    System.err.println("relay logs: " + work);
  }
}
