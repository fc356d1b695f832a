package io.outboxrelay.testsupport.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A real Kafka Connect worker ({@code connect-runtime}) as a child JVM: Connect and its libraries
 * on the classpath, plugins only from {@code plugin.path}, found with {@code
 * plugin.discovery=service_load}; the REST API on a free port of 127.0.0.1. In standalone mode
 * ({@code org.apache.kafka.connect.cli.ConnectStandalone}, the default) it runs one connector given
 * at start and keeps offsets in a file of the worker's directory; in distributed mode ({@link
 * Builder#distributed}, {@code ConnectDistributed}) its configuration, offsets and status live in
 * topics of the broker and connectors are created through the REST API ({@link #put}). Whoever
 * starts it provides the classpath and the plugin directories (the build writes them). Not
 * thread-safe.
 */
public final class KafkaConnectWorker implements AutoCloseable {

  /** The log line of Debezium's MariaDB or MySQL connector once it reads the binlog. */
  public static final String BINLOG_CONNECTED = "Connected to (MySQL |MariaDB )?binlog at";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ChildProcess process;
  private final URI rest;
  private final Map<String, String> properties;
  private final HttpClient http = HttpClient.newHttpClient();

  private KafkaConnectWorker(ChildProcess process, URI rest, Map<String, String> properties) {
    this.process = process;
    this.rest = rest;
    this.properties = properties;
  }

  /** An answer of the REST API: its status code and its body as JSON (a missing node if empty). */
  public record Answer(int status, JsonNode body) {}

  /**
   * Starts building a worker.
   *
   * @param name a name for the process and its log file
   * @param dir the worker's own directory (its configuration and offsets), created if missing
   * @param classpath the worker's classpath, entries separated by {@code :}: Connect, its libraries
   *     and an slf4j-1 binding, no plugins
   * @return a builder
   */
  public static Builder builder(String name, Path dir, String classpath) {
    return new Builder(name, dir, classpath);
  }

  /** The child process (its pid, log and signals). */
  public ChildProcess process() {
    return process;
  }

  /**
   * A property of the worker's configuration file, e.g. {@code offset.storage.topic}.
   *
   * @param key the property
   * @return its value, {@code null} when the file does not set it
   */
  public String property(String key) {
    return properties.get(key);
  }

  /**
   * Waits until the worker answers 200 on {@code GET /health}: its REST API is up and, in
   * distributed mode, it has joined its group and read the configuration topic.
   *
   * @param timeout how long to wait
   * @return this worker
   * @throws LocalStackException on timeout or if the process exits first, with the log tail
   */
  public KafkaConnectWorker awaitHealthy(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (true) {
      if (!process.isAlive()) {
        throw new LocalStackException(
            process.name() + " exited before it was healthy:\n" + process.logTail(40));
      }
      try {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(rest.resolve("/health"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return this;
        }
        last = response.statusCode() + ": " + response.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new LocalStackException(
            process.name()
                + " was not healthy within "
                + timeout
                + " (last answer "
                + last
                + "):\n"
                + process.logTail(40));
      }
      ChildProcess.pauseBriefly();
    }
  }

  /**
   * A PUT on the REST API with a JSON body, e.g. {@code /connectors/x/config} (creates or updates a
   * connector in distributed mode) or {@code /connector-plugins/<class>/config/validate}.
   *
   * @param path the path
   * @param body the body, serialised as JSON
   * @return the answer, whatever its status
   * @throws IllegalStateException when the thread was interrupted
   * @throws UncheckedIOException when the worker cannot be reached
   */
  public Answer put(String path, Object body) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(rest.resolve(path))
                  .header("Content-Type", "application/json")
                  .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), JSON.readTree(response.body()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * A GET on the REST API.
   *
   * @param path e.g. {@code /connectors/x/status}
   * @return the parsed JSON answer
   * @throws IllegalStateException when the answer is not 200, or the thread was interrupted
   * @throws UncheckedIOException when the worker cannot be reached
   */
  public JsonNode get(String path) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the worker (SIGTERM, then SIGKILL after 15 s). Idempotent. */
  @Override
  public void close() {
    process.close();
  }

  /** Configures and starts a {@link KafkaConnectWorker}. Not thread-safe. */
  public static final class Builder {

    private final String name;
    private final Path dir;
    private final String classpath;
    private final Map<String, String> worker = new TreeMap<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private List<Path> pluginPath = List.of();
    private Map<String, Object> connector;
    private Path logDir;
    private String heap = "384m";
    private String mainClass = "org.apache.kafka.connect.cli.ConnectStandalone";
    private boolean distributed;

    private Builder(String name, Path dir, String classpath) {
      this.name = Objects.requireNonNull(name, "name");
      this.dir = Objects.requireNonNull(dir, "dir");
      this.classpath = Objects.requireNonNull(classpath, "classpath");
      worker.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      worker.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      worker.put("plugin.discovery", "service_load");
    }

    /**
     * Sets the broker (required).
     *
     * @param bootstrapServers the worker's {@code bootstrap.servers}
     * @return this builder
     */
    public Builder bootstrapServers(String bootstrapServers) {
      return workerProperty("bootstrap.servers", bootstrapServers);
    }

    /**
     * Sets the {@code plugin.path} directories (required).
     *
     * @param directories directories whose subdirectories are plugins
     * @return this builder
     */
    public Builder pluginPath(List<Path> directories) {
      this.pluginPath = List.copyOf(directories);
      return this;
    }

    /**
     * Runs the worker in distributed mode ({@code ConnectDistributed}) as the only member of a
     * group: {@code group.id}, and the topics {@code <groupId>-configs}, {@code <groupId>-offsets}
     * and {@code <groupId>-status} (replication factor 1, offsets and status in one partition),
     * unless set with {@link #workerProperty}. Connectors are then created with {@link #put}, not
     * {@link #connector}. Distributed mode is what Connect's exactly-once source support ({@code
     * exactly.once.source.support=enabled}) needs.
     *
     * @param groupId the worker's {@code group.id}, unique per test
     * @return this builder
     */
    public Builder distributed(String groupId) {
      Objects.requireNonNull(groupId, "groupId");
      distributed = true;
      mainClass = "org.apache.kafka.connect.cli.ConnectDistributed";
      worker.put("group.id", groupId);
      worker.put("config.storage.topic", groupId + "-configs");
      worker.put("offset.storage.topic", groupId + "-offsets");
      worker.put("status.storage.topic", groupId + "-status");
      worker.put("config.storage.replication.factor", "1");
      worker.put("offset.storage.replication.factor", "1");
      worker.put("status.storage.replication.factor", "1");
      worker.put("offset.storage.partitions", "1");
      worker.put("status.storage.partitions", "1");
      return this;
    }

    /**
     * Sets the connector (required in standalone mode, refused in distributed mode).
     *
     * @param connector the connector as the JSON body of {@code POST /connectors}: {@code name} and
     *     {@code config}
     * @return this builder
     */
    public Builder connector(Map<String, Object> connector) {
      this.connector = Objects.requireNonNull(connector, "connector");
      return this;
    }

    /**
     * Sets a worker property, e.g. {@code offset.flush.interval.ms} (Connect's defaults apply to
     * the others; the converters are {@code ByteArrayConverter} unless set here).
     *
     * @param key the property
     * @param value its value
     * @return this builder
     */
    public Builder workerProperty(String key, String value) {
      worker.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Sets the maximum heap (default {@code 384m}).
     *
     * @param maxHeap the {@code -Xmx} value
     * @return this builder
     */
    public Builder heap(String maxHeap) {
      this.heap = Objects.requireNonNull(maxHeap, "maxHeap");
      return this;
    }

    /**
     * Adds JVM options, e.g. {@code -XX:+UseSerialGC}.
     *
     * @param options the options
     * @return this builder
     */
    public Builder jvmOptions(List<String> options) {
      jvmOptions.addAll(options);
      return this;
    }

    /**
     * Sets the main class (default Connect's {@code ConnectStandalone}, or {@code
     * ConnectDistributed} after {@link #distributed}): one on the classpath that prepares the JVM
     * and then runs Connect's with its arguments, the worker's file (and in standalone mode the
     * connector's).
     *
     * @param className the class
     * @return this builder
     */
    public Builder mainClass(String className) {
      this.mainClass = Objects.requireNonNull(className, "className");
      return this;
    }

    /**
     * Sets where the log file {@code <name>.log} goes (default: the worker's directory).
     *
     * @param logDir the directory
     * @return this builder
     */
    public Builder logDir(Path logDir) {
      this.logDir = Objects.requireNonNull(logDir, "logDir");
      return this;
    }

    /**
     * Writes the worker's (and in standalone mode the connector's) configuration into its directory
     * and starts the worker. A standalone worker runs the connector once it has started; nothing
     * here waits for that.
     *
     * @return the started worker
     * @throws IllegalStateException when the broker or the plugin path is not set, or the connector
     *     is missing in standalone mode or set in distributed mode
     * @throws UncheckedIOException when the configuration cannot be written
     * @throws LocalStackException when the JVM cannot be started
     */
    public KafkaConnectWorker start() {
      if (!worker.containsKey("bootstrap.servers") || pluginPath.isEmpty()) {
        throw new IllegalStateException("a Connect worker needs bootstrapServers and pluginPath");
      }
      if (distributed == (connector != null)) {
        throw new IllegalStateException(
            distributed
                ? "a distributed worker takes its connectors through the REST API (put)"
                : "a standalone worker needs its connector");
      }
      int port = FreePorts.findFreePort();
      Map<String, String> properties = new TreeMap<>(worker);
      if (!distributed) {
        properties.putIfAbsent(
            "offset.storage.file.filename", dir.resolve("connect.offsets").toString());
      }
      properties.put(
          "plugin.path",
          pluginPath.stream()
              .map(p -> p.toAbsolutePath().toString())
              .collect(Collectors.joining(",")));
      properties.put("listeners", "http://127.0.0.1:" + port);
      try {
        Files.createDirectories(dir);
        Path workerFile = dir.resolve("worker.properties");
        Files.writeString(
            workerFile,
            properties.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue().replace("\\", "\\\\"))
                .collect(Collectors.joining("\n", "", "\n")));
        List<String> arguments = new ArrayList<>(List.of(workerFile.toString()));
        if (!distributed) {
          Path connectorFile = dir.resolve("connector.json");
          JSON.writerWithDefaultPrettyPrinter().writeValue(connectorFile.toFile(), connector);
          arguments.add(connectorFile.toString());
        }
        Path log4j = dir.resolve("log4j2.xml");
        Files.writeString(log4j, LOG4J2_XML, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>();
        options.add("-Dlog4j2.configurationFile=" + log4j);
        options.addAll(jvmOptions);
        List<String> command =
            ChildProcess.javaCommand(heap, options, classpath, mainClass, arguments);
        ChildProcess process =
            ChildProcess.builder(command)
                .name(name)
                .directory(dir)
                .logFile((logDir == null ? dir : logDir).resolve(name + ".log"))
                .start();
        return new KafkaConnectWorker(
            process, URI.create("http://127.0.0.1:" + port), Map.copyOf(properties));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * The workers' log4j2 configuration: INFO to stdout (the lines tests wait for), the Kafka
   * clients' chatter at WARN.
   */
  public static final String LOG4J2_XML =
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <Configuration status="WARN">
        <Appenders>
          <Console name="stdout" target="SYSTEM_OUT">
            <PatternLayout pattern="[%d] %p %m (%c)%n"/>
          </Console>
        </Appenders>
        <Loggers>
          <Logger name="org.apache.kafka.clients" level="WARN"/>
          <Logger name="org.apache.kafka.common" level="WARN"/>
          <Logger name="org.reflections" level="ERROR"/>
          <Root level="INFO">
            <AppenderRef ref="stdout"/>
          </Root>
        </Loggers>
      </Configuration>
      """;
}
