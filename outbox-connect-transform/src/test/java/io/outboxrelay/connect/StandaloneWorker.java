package io.outboxrelay.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.testsupport.stack.ChildProcess;
import io.outboxrelay.testsupport.stack.FreePorts;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A real Kafka Connect worker ({@code connect-runtime}) in standalone mode, as a child JVM with
 * {@code -Xmx384m}: Connect and its libraries on the classpath, plugins only from {@code
 * plugin.path} found with {@code plugin.discovery=service_load}, the REST API on a free port of
 * 127.0.0.1. Offsets in a file of its directory. Not thread-safe.
 */
final class StandaloneWorker implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ChildProcess process;
  private final URI rest;
  private final HttpClient http = HttpClient.newHttpClient();

  private StandaloneWorker(ChildProcess process, URI rest) {
    this.process = process;
    this.rest = rest;
  }

  /**
   * Starts a worker with one connector.
   *
   * @param name a name for the log file
   * @param dir the worker's own directory (config, offsets)
   * @param logDir where the log goes
   * @param classpath the worker's classpath, entries separated by {@code :}
   * @param pluginPath the plugin.path directories
   * @param bootstrapServers the Kafka broker
   * @param connector the connector, as the JSON body of {@code POST /connectors}
   * @return the running worker
   */
  static StandaloneWorker start(
      String name,
      Path dir,
      Path logDir,
      String classpath,
      List<Path> pluginPath,
      String bootstrapServers,
      Map<String, Object> connector) {
    int port = FreePorts.findFreePort();
    Map<String, String> worker = new TreeMap<>();
    worker.put("bootstrap.servers", bootstrapServers);
    worker.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    worker.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    worker.put("offset.storage.file.filename", dir.resolve("connect.offsets").toString());
    worker.put("offset.flush.interval.ms", "1000");
    worker.put(
        "plugin.path",
        pluginPath.stream()
            .map(p -> p.toAbsolutePath().toString())
            .collect(Collectors.joining(",")));
    worker.put("plugin.discovery", "service_load");
    worker.put("listeners", "http://127.0.0.1:" + port);
    try {
      Path workerFile = dir.resolve("worker.properties");
      Files.writeString(
          workerFile,
          worker.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue().replace("\\", "\\\\"))
              .collect(Collectors.joining("\n", "", "\n")));
      Path connectorFile = dir.resolve("connector.json");
      JSON.writerWithDefaultPrettyPrinter().writeValue(connectorFile.toFile(), connector);
      Path log4j = dir.resolve("log4j2.xml");
      Files.writeString(log4j, LOG4J2_XML, StandardCharsets.UTF_8);
      List<String> command =
          ChildProcess.javaCommand(
              "384m",
              List.of("-Dlog4j2.configurationFile=" + log4j, "-XX:+UseSerialGC"),
              classpath,
              "org.apache.kafka.connect.cli.ConnectStandalone",
              List.of(workerFile.toString(), connectorFile.toString()));
      ChildProcess process =
          ChildProcess.builder(command)
              .name(name)
              .directory(dir)
              .logFile(logDir.resolve(name + ".log"))
              .start();
      return new StandaloneWorker(process, URI.create("http://127.0.0.1:" + port));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The child process (its log, signals). */
  ChildProcess process() {
    return process;
  }

  /**
   * A GET on the REST API.
   *
   * @param path e.g. {@code /connectors/x/status}
   * @return the parsed JSON answer
   */
  JsonNode get(String path) {
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

  /** Stops the worker (SIGTERM, then SIGKILL). */
  @Override
  public void close() {
    process.close();
  }

  private static final String LOG4J2_XML =
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
