package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka Connect 4.1.1 in standalone mode (a child JVM) with Debezium's MariaDB connector and
 * Debezium's outbox {@code EventRouter} transform, 3.5.0.Final, configured as a user would: the
 * relay's table with the router's fields mapped to its columns, so that the rows, the topics, the
 * key ({@code aggregate_id}) and the headers ({@code id} and the three others the relay writes) are
 * the relay's; the raw payload as the value. Connect's and Debezium's defaults otherwise (among
 * them Debezium's {@code poll.interval.ms}, 500 ms), unless {@code --connect-set} changes a
 * connector setting; offsets in a file. The JVM runs with the options {@code connect-standalone.sh}
 * gives it ({@link #JVM_OPTIONS}) and the heap given to the benchmark.
 */
final class ConnectPipeline implements Pipeline {

  /** The system property naming the worker's classpath file ({@code bench-peers} writes it). */
  static final String CLASSPATH_PROPERTY = "outbox.bench.connect.classpath";

  /** The system property naming the plugin.path directory ({@code bench-peers} fills it). */
  static final String PLUGINS_PROPERTY = "outbox.bench.connect.plugins";

  /** {@code kafka-run-class.sh}'s performance options; the heap comes on top. */
  static final List<String> JVM_OPTIONS =
      List.of(
          "-Xms256m",
          "-server",
          "-XX:+UseG1GC",
          "-XX:MaxGCPauseMillis=20",
          "-XX:InitiatingHeapOccupancyPercent=35",
          "-XX:+ExplicitGCInvokesConcurrent",
          "-Djava.awt.headless=true");

  private final Path dir;
  private final Path logDir;
  private final String bootstrap;
  private final String heap;
  private final Map<String, Object> connector;

  ConnectPipeline(
      BenchEnv env, OutboxDatabase db, String name, String topicPrefix, PeerOptions options) {
    this.dir = env.workDir().resolve(name);
    this.logDir = env.workDir();
    this.bootstrap = env.bootstrapServers();
    this.heap = options.connectHeap();
    this.connector = connector(db, name, topicPrefix, bootstrap, options.connectSettings());
  }

  @Override
  public Started start(String process) {
    KafkaConnectWorker worker =
        KafkaConnectWorker.builder(process, dir, classpath())
            .logDir(logDir)
            .heap(heap)
            .jvmOptions(JVM_OPTIONS)
            .pluginPath(List.of(pluginPath()))
            .bootstrapServers(bootstrap)
            .connector(connector)
            .start();
    return new Started() {
      @Override
      public long pid() {
        return worker.process().pid();
      }

      @Override
      public void awaitCapturing() {
        worker.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, Duration.ofSeconds(120));
      }

      @Override
      public void stop() {
        worker.process().stop(Duration.ofSeconds(60));
      }
    };
  }

  static Map<String, Object> connector(
      OutboxDatabase db,
      String name,
      String topicPrefix,
      String bootstrap,
      Map<String, String> overrides) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("tasks.max", "1");
    c.putAll(DebeziumSettings.mariaDbConnector(db, name));
    c.put("schema.history.internal.kafka.bootstrap.servers", bootstrap);
    c.put("schema.history.internal.kafka.topic", name + ".schema-history");
    // The router's key, value and headers are strings: their UTF-8 bytes, the payload unchanged.
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("transforms", "outbox");
    DebeziumSettings.putAll(c, "transforms.outbox.", DebeziumSettings.eventRouter(topicPrefix));
    c.putAll(overrides);
    return Map.of("name", name, "config", c);
  }

  static String classpath() {
    Path file = Path.of(required(CLASSPATH_PROPERTY));
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the Connect worker's classpath " + file + ": run mvn package first", e);
    }
  }

  static Path pluginPath() {
    Path dir = Path.of(required(PLUGINS_PROPERTY));
    if (!Files.isDirectory(dir.resolve("debezium-connector-mariadb"))) {
      throw new IllegalStateException(
          dir + " holds no debezium-connector-mariadb plugin: run mvn package first");
    }
    return dir;
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "-D"
              + property
              + " is not set: run the benchmark with scripts/bench.sh, which passes it (the files"
              + " tools/bench/peers builds)");
    }
    return value;
  }
}
