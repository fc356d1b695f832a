package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The switch from Kafka Connect to the relay under a steady writer: Connect 4.1.1 (standalone,
 * Debezium's MariaDB connector and {@code EventRouter}, as {@link ConnectPipeline} configures them)
 * publishes, its worker is killed (the worst case: no last offset flush), {@code outbox-relay
 * position import --from-offsets-file} takes over its offset, and the relay starts. Reported per
 * {@code offset.flush.interval.ms}: events lost (must be 0), events published twice, and the gap
 * between Connect's last record and the relay's first (broker append times), the stop, import and
 * start included. Connect runs one flush interval plus {@code --seconds} before it is killed, so
 * that it has committed an offset.
 */
final class SwitchBench {

  private final BenchEnv env;

  SwitchBench(BenchEnv env) {
    this.env = env;
  }

  void run(ResultTable table, List<Long> flushIntervalsMs, int rate, Duration seconds)
      throws Exception {
    for (long interval : flushIntervalsMs) {
      Quiet.await(env.mariaDb(), "switch");
      System.err.println("switch: Connect with offset.flush.interval.ms=" + interval + "...");
      Result r = once(interval, rate, seconds);
      table.add(
          "switch Connect → relay, flush " + interval + " ms, " + rate + " ev/s",
          r.lost() + " lost, " + r.duplicates() + " twice, gap " + r.gapMillis() + " ms",
          "0 lost",
          r.events() + " events; import " + r.importMillis() + " ms; Connect killed");
    }
  }

  private record Result(
      long events, long lost, long duplicates, long gapMillis, long importMillis) {}

  private Result once(long interval, int rate, Duration seconds) throws Exception {
    String name =
        "switch"
            + interval
            + "x"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0xffff));
    String prefix = name + ".outbox.event.";
    Path dir = env.workDir().resolve(name);
    try (OutboxDatabase db = OutboxDatabase.on(env.mariaDb())) {
      Map<String, Object> connector =
          ConnectPipeline.connector(db, name, prefix, env.bootstrapServers(), Map.of());
      KafkaConnectWorker worker =
          KafkaConnectWorker.builder(name + "-connect", dir, ConnectPipeline.classpath())
              .logDir(env.workDir())
              .heap("512m")
              .jvmOptions(ConnectPipeline.JVM_OPTIONS)
              .pluginPath(List.of(ConnectPipeline.pluginPath()))
              .bootstrapServers(env.bootstrapServers())
              .workerProperty("offset.flush.interval.ms", String.valueOf(interval))
              .connector(connector)
              .start();
      RelayProcess relay = null;
      try {
        worker.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, Duration.ofSeconds(120));
        Duration connectPhase = Duration.ofMillis(interval).plus(seconds);
        Duration total = connectPhase.plus(seconds).plusSeconds(10);
        CompletableFuture<Map<String, Long>> load =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return SteadyLoad.run(db, rate, total);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        Thread.sleep(connectPhase.toMillis());
        awaitReadable(dir.resolve("connect.offsets"));
        worker.process().kill();
        worker.process().waitFor(Duration.ofSeconds(30)); // a dying worker may still write
        Map<TopicPartition, Long> connectEnd = endOffsets(prefix);
        Path config =
            env.writeConfig(
                RelaySettings.cdc(db, env.bootstrapServers(), name)
                    .with("router.topic.template", prefix + "${aggregate_type}"),
                name);
        long t0 = System.nanoTime();
        RelayProcess command =
            RelayProcess.start(
                name + "-import",
                env.workDir(),
                "position",
                "import",
                "--config",
                config.toString(),
                "--from-offsets-file",
                dir.resolve("connect.offsets").toString(),
                "--connector",
                name,
                "--yes");
        int exit = command.waitFor(Duration.ofSeconds(120));
        long importMillis = (System.nanoTime() - t0) / 1_000_000;
        if (exit != 0) {
          throw new IllegalStateException("position import exited " + exit + ": " + command.log());
        }
        relay = env.startRelay(name + "-relay", config);
        relay.awaitReady();
        Set<String> ids = load.get().keySet();
        return audit(prefix, ids, connectEnd, importMillis);
      } finally {
        worker.close();
        if (relay != null) {
          relay.close();
        }
      }
    }
  }

  /**
   * Waits until the offsets file can be read: Kafka's FileOffsetBackingStore truncates the file and
   * then writes it, and a worker killed in between leaves a file nobody can read.
   */
  private static void awaitReadable(Path file) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      try (java.io.ObjectInputStream in =
          new java.io.ObjectInputStream(java.nio.file.Files.newInputStream(file))) {
        if (in.readObject() instanceof Map<?, ?> m && !m.isEmpty()) {
          return;
        }
      } catch (java.io.IOException | ClassNotFoundException e) {
        // not written yet, or being written
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("Connect wrote no offsets to " + file + " within 60 s");
  }

  private Map<TopicPartition, Long> endOffsets(String prefix) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .listTopics()
          .forEach(
              (topic, infos) -> {
                if (topic.startsWith(prefix)) {
                  infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
                }
              });
      return consumer.endOffsets(partitions);
    }
  }

  /** Reads until every id arrived (or 120 s passed), then counts. */
  private Result audit(
      String prefix, Set<String> ids, Map<TopicPartition, Long> connectEnd, long importMillis) {
    Map<String, Integer> seen = new HashMap<>();
    long lastConnect = Long.MIN_VALUE;
    long firstRelay = Long.MAX_VALUE;
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    long quietUntil = Long.MAX_VALUE;
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      consumer.subscribe(Pattern.compile(Pattern.quote(prefix) + ".*"));
      while (System.nanoTime() < Math.min(deadline, quietUntil)) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Header id = r.headers().lastHeader("id");
          if (id != null) {
            seen.merge(new String(id.value(), StandardCharsets.UTF_8), 1, Integer::sum);
          }
          long end = connectEnd.getOrDefault(new TopicPartition(r.topic(), r.partition()), 0L);
          if (r.offset() < end) {
            lastConnect = Math.max(lastConnect, r.timestamp());
          } else {
            firstRelay = Math.min(firstRelay, r.timestamp());
          }
        }
        if (quietUntil == Long.MAX_VALUE && seen.keySet().containsAll(ids)) {
          quietUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        }
      }
    }
    long lost = ids.stream().filter(i -> !seen.containsKey(i)).count();
    long duplicates = seen.values().stream().mapToLong(n -> n - 1).sum();
    long gap =
        firstRelay == Long.MAX_VALUE || lastConnect == Long.MIN_VALUE
            ? -1
            : firstRelay - lastConnect;
    return new Result(ids.size(), lost, duplicates, gap, importMillis);
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, env.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "switch-" + System.nanoTime());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
