package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.stack.ChildProcess;
import io.outboxrelay.testsupport.stack.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Debezium Server (a child JVM of its own distribution, {@link ServerDistribution}) with Debezium's
 * connector for the run's database ({@link PeerSource}: MariaDB, or PostgreSQL with {@code
 * pgoutput}), the outbox {@code EventRouter} and its Kafka sink, configured as a user would in
 * {@code config/application.properties}: the connector and the router as the Kafka Connect pipeline
 * has them ({@link DebeziumSettings}), the router's key, value and headers as their UTF-8 bytes,
 * offsets (and on MariaDB the schema history) in files of the pipeline's directory. Debezium
 * Server's, Debezium's and the producer's defaults otherwise (among them Debezium's {@code
 * poll.interval.ms}, 500 ms, {@code max.batch.size}, 2,048, and the offsets flushed every 60 s and
 * at a stop), unless {@code --server-set} changes a property; the JVM runs with the heap given to
 * the benchmark and the JVM's defaults otherwise, as the server's {@code run.sh} starts it.
 */
final class ServerPipeline implements Pipeline {

  private static final String STRING_SERIALIZER =
      "org.apache.kafka.common.serialization.StringSerializer";

  private final Path dir;
  private final Path logDir;
  private final ServerDistribution distribution;
  private final JavaRuntimes.Jdk java;
  private final String heap;
  private final Map<String, String> properties;
  private final String capturingLine;

  ServerPipeline(
      BenchEnv env,
      PeerSource source,
      ServerDistribution distribution,
      JavaRuntimes.Jdk java,
      OutboxDatabase db,
      String name,
      String topicPrefix,
      PeerOptions options) {
    this.dir = env.workDir().resolve(name);
    this.logDir = env.workDir();
    this.distribution = distribution;
    this.java = java;
    this.heap = options.serverHeap();
    this.capturingLine = source.debeziumCapturingLine();
    this.properties =
        properties(
            source.debeziumSettings(db, name, dir),
            topicPrefix,
            env.bootstrapServers(),
            dir,
            options.serverSettings());
  }

  /**
   * The server's {@code application.properties}, but for its HTTP port.
   *
   * @param connector the connector's settings, without the {@code debezium.source.} prefix
   */
  static Map<String, String> properties(
      Map<String, String> connector,
      String topicPrefix,
      String bootstrap,
      Path dir,
      Map<String, String> overrides) {
    Map<String, String> p = new TreeMap<>();
    p.put("debezium.sink.type", "kafka");
    p.put("debezium.sink.kafka.producer.bootstrap.servers", bootstrap);
    // The router's key, value and headers are strings: simplestring hands the key and value to the
    // producer as strings (StringConverter) and the StringSerializer sends their UTF-8 bytes, the
    // payload unchanged. The default header format, json, would quote each header's value;
    // StringConverter as the header converter writes its UTF-8 bytes, as the other pipelines do.
    p.put("debezium.sink.kafka.producer.key.serializer", STRING_SERIALIZER);
    p.put("debezium.sink.kafka.producer.value.serializer", STRING_SERIALIZER);
    p.put("debezium.format.key", "simplestring");
    p.put("debezium.format.value", "simplestring");
    p.put("debezium.format.header", "clientprovided");
    p.put("debezium.format.header.class", "org.apache.kafka.connect.storage.StringConverter");
    DebeziumSettings.putAll(p, "debezium.source.", connector);
    p.put(
        "debezium.source.offset.storage",
        "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    p.put("debezium.source.offset.storage.file.filename", dir.resolve("offsets.dat").toString());
    p.put("debezium.transforms", "outbox");
    DebeziumSettings.putAll(
        p, "debezium.transforms.outbox.", DebeziumSettings.eventRouter(topicPrefix));
    // Plain log lines (the distribution logs JSON otherwise); the health endpoint on loopback only.
    p.put("quarkus.log.console.json.enabled", "false");
    p.put("quarkus.http.host", "127.0.0.1");
    p.putAll(overrides);
    return p;
  }

  @Override
  public Started start(String process) {
    Map<String, String> file = new TreeMap<>(properties);
    file.putIfAbsent("quarkus.http.port", String.valueOf(FreePorts.findFreePort()));
    writeProperties(dir.resolve("config").resolve("application.properties"), file);
    List<String> command = new ArrayList<>();
    command.add(java.java().toString());
    command.add("-Xmx" + heap);
    command.add("-cp");
    command.add(distribution.classpath());
    command.add("io.debezium.server.Main");
    // Quarkus reads config/application.properties of the working directory.
    ChildProcess server =
        ChildProcess.builder(command)
            .name(process)
            .directory(dir)
            .logFile(logDir.resolve(process + ".log"))
            .start();
    return new Started() {
      @Override
      public long pid() {
        return server.pid();
      }

      @Override
      public void awaitCapturing() {
        server.awaitLogLine(capturingLine, Duration.ofSeconds(120));
      }

      @Override
      public void stop() {
        server.stop(Duration.ofSeconds(60));
      }
    };
  }

  /**
   * Writes the properties literally: a backslash is escaped for the properties format and {@code
   * ${}, which Quarkus would expand as an expression (the router's {@code ${routedByValue}}), is
   * escaped as {@code $${}.
   */
  static void writeProperties(Path file, Map<String, String> properties) {
    StringBuilder sb = new StringBuilder();
    properties.forEach(
        (k, v) ->
            sb.append(k)
                .append('=')
                .append(v.replace("\\", "\\\\").replace("${", "$${"))
                .append('\n'));
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, sb);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
