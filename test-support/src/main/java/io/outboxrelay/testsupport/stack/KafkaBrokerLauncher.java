package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mechanics of starting a KRaft broker in a child JVM: config files, formatting the storage
 * with {@code kafka.tools.StorageTool} in a short-lived JVM (it calls {@code exit}, so never
 * in-process; once per JVM, see {@link KafkaStorageTemplates}), launching {@code kafka.Kafka} and
 * waiting until it answers.
 *
 * <p>Files in the data directory: {@code server.properties}, {@code log4j2.xml}, {@code server.log}
 * (the broker's log), {@code format.log}, {@code broker.out} and {@code format.out} (stdout and
 * stderr, normally empty) and {@code kraft/} ({@code log.dirs}).
 *
 * <p>Not thread-safe: used by {@link KafkaBroker} under its lock.
 */
final class KafkaBrokerLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerLauncher.class);

  /**
   * The system property with further JVM options for every broker, separated by spaces. The build
   * sets {@code -XX:TieredStopAtLevel=1} for integration tests: a test broker serves little, and
   * the C2 compiler's work in its first seconds costs a busy 2-core host about a second of CPU per
   * start. Benchmarks, which run outside the build, keep the JVM's default compilers.
   */
  static final String JVM_OPTIONS_PROPERTY = "localstack.kafka.jvmOptions";

  private static final String FORMAT_HEAP = "256m";

  private final Path dataDir;
  private final KafkaBrokerConfig config;
  private final String heap;
  private final Duration startupTimeout;
  private final String logPrefix;
  private KafkaBrokerCds cds;

  KafkaBrokerLauncher(
      Path dataDir,
      KafkaBrokerConfig config,
      String heap,
      Duration startupTimeout,
      String logPrefix) {
    this.dataDir = dataDir;
    this.config = config;
    this.heap = heap;
    this.startupTimeout = startupTimeout;
    this.logPrefix = logPrefix;
  }

  /** The directory given to the broker as {@code log.dirs}. */
  static Path logDirs(Path dataDir) {
    return dataDir.resolve("kraft");
  }

  /** The broker's log file. */
  static Path serverLog(Path dataDir) {
    return dataDir.resolve("server.log");
  }

  /**
   * Writes the config files and, unless the storage is formatted already, fills it with a copy of
   * storage formatted once per JVM ({@link KafkaStorageTemplates}).
   *
   * @param classpath the broker classpath
   * @return how long formatting (or copying) took, 0 if the storage was formatted already
   */
  long prepare(String classpath) {
    writeConfigFiles();
    if (Files.exists(logDirs(dataDir).resolve("meta.properties"))) {
      return 0;
    }
    long begin = System.nanoTime();
    KafkaStorageTemplates.copyInto(
        config,
        logDirs(dataDir),
        (templateConfig, templateDir) -> {
          KafkaBrokerLauncher template =
              new KafkaBrokerLauncher(
                  templateDir, templateConfig, heap, startupTimeout, "[kafka template]");
          template.writeConfigFiles();
          template.format(classpath);
        });
    return (System.nanoTime() - begin) / 1_000_000;
  }

  private void writeConfigFiles() {
    try {
      Dirs.createDirectories(dataDir);
      Files.writeString(serverProperties(), config.renderServerProperties());
      Files.writeString(log4jConfig(), KafkaBrokerConfig.renderLog4j2Xml());
    } catch (IOException e) {
      throw new LocalStackException(logPrefix + " cannot write config files: " + e, e);
    }
  }

  /**
   * Starts {@code kafka.Kafka server.properties} in a child JVM, with the class data sharing
   * archive where there is one ({@link KafkaBrokerCds}).
   */
  ChildProcess launch(String classpath) {
    cds = KafkaBrokerCds.forClasspath(classpath);
    List<String> options = new ArrayList<>();
    options.add("-XX:+UseSerialGC");
    options.addAll(cds.jvmOptions());
    options.addAll(extraJvmOptions());
    options.add("-Djava.awt.headless=true");
    options.add("-Dlog4j2.configurationFile=" + log4jConfig());
    options.add("-Dlog4j.configurationFile=" + log4jConfig());
    options.add("-D" + KafkaBrokerConfig.LOG_FILE_PROPERTY + "=" + serverLog(dataDir));
    return ChildProcess.builder(
            ChildProcess.javaCommand(
                heap, options, classpath, "kafka.Kafka", List.of(serverProperties().toString())))
        .name("kafka-broker")
        .logFile(dataDir.resolve("broker.out"))
        .directory(dataDir)
        .start();
  }

  private static List<String> extraJvmOptions() {
    String value = System.getProperty(JVM_OPTIONS_PROPERTY, "").strip();
    return value.isEmpty() ? List.of() : List.of(value.split("\\s+"));
  }

  /**
   * Waits until the listener accepts connections (checked quietly, without client warnings), then
   * until {@code describeCluster} lists the broker, which means it is registered and unfenced.
   *
   * @param process the broker
   * @param bootstrapServers its address
   * @param launchNanos when it was launched ({@link System#nanoTime()})
   * @throws LocalStackException if it exits or is not ready within the startup timeout (it is
   *     killed then), with the tail of {@code server.log}
   */
  void awaitReady(ChildProcess process, String bootstrapServers, long launchNanos) {
    long deadline = launchNanos + startupTimeout.toNanos();
    while (!portAccepts(bootstrapServers)) {
      checkStillStarting(process, deadline);
      ChildProcess.pauseBriefly();
    }
    try (Admin admin = Admin.create(adminProperties(bootstrapServers, "local-stack-readiness"))) {
      while (true) {
        checkStillStarting(process, deadline);
        try {
          if (!admin
              .describeCluster(new DescribeClusterOptions().timeoutMs(2_000))
              .nodes()
              .get(3, TimeUnit.SECONDS)
              .isEmpty()) {
            if (cds != null) {
              cds.brokerReady();
            }
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          LOG.debug("{} not ready yet: {}", logPrefix, e.toString());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LocalStackException("interrupted while waiting for " + logPrefix, e);
        }
        ChildProcess.pauseBriefly();
      }
    }
  }

  /** Admin client settings for short administrative calls against the local broker. */
  static Properties adminProperties(String bootstrapServers, String clientId) {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    properties.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    return properties;
  }

  private void format(String classpath) {
    String clusterId = Uuid.randomUuid().toString();
    List<String> options =
        List.of(
            "-XX:+UseSerialGC",
            // A short-lived tool: the C2 compiler would only compete for the CPU.
            "-XX:TieredStopAtLevel=1",
            "-Dlog4j2.configurationFile=" + log4jConfig(),
            "-Dlog4j.configurationFile=" + log4jConfig(),
            "-D" + KafkaBrokerConfig.LOG_FILE_PROPERTY + "=" + dataDir.resolve("format.log"));
    ChildProcess formatter =
        ChildProcess.builder(
                ChildProcess.javaCommand(
                    FORMAT_HEAP,
                    options,
                    classpath,
                    "kafka.tools.StorageTool",
                    List.of("format", "-t", clusterId, "-c", serverProperties().toString())))
            .name("kafka-storage-format")
            .logFile(dataDir.resolve("format.out"))
            .start();
    int exit = formatter.waitFor(startupTimeout);
    if (exit != 0) {
      throw new LocalStackException(
          logPrefix
              + " kafka.tools.StorageTool format exited with code "
              + exit
              + LogFiles.labelledTail("output", formatter.logFile(), 20)
              + LogFiles.labelledTail("log", dataDir.resolve("format.log"), 20));
    }
    LOG.info("{} formatted {} with cluster id {}", logPrefix, logDirs(dataDir), clusterId);
  }

  private void checkStillStarting(ChildProcess process, long deadline) {
    if (!process.isAlive()) {
      throw new LocalStackException(
          logPrefix
              + " broker exited with code "
              + process.exitCode().orElse(-1)
              + " during startup"
              + failureLogs());
    }
    if (System.nanoTime() - deadline > 0) {
      process.kill();
      throw new LocalStackException(
          logPrefix + " broker was not ready within " + startupTimeout + failureLogs());
    }
  }

  private static boolean portAccepts(String bootstrapServers) {
    int colon = bootstrapServers.lastIndexOf(':');
    String host = bootstrapServers.substring(0, colon);
    int port = Integer.parseInt(bootstrapServers.substring(colon + 1));
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private String failureLogs() {
    return LogFiles.labelledTail("server.log", serverLog(dataDir), 40)
        + LogFiles.labelledTail("output", dataDir.resolve("broker.out"), 20);
  }

  private Path serverProperties() {
    return dataDir.resolve("server.properties");
  }

  private Path log4jConfig() {
    return dataDir.resolve("log4j2.xml");
  }
}
