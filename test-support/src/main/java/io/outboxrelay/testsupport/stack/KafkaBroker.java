package io.outboxrelay.testsupport.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) in a child JVM, on
 * 127.0.0.1 at ports that stay the same across restarts, so clients keep their bootstrap address
 * while a fault test stops, kills or pauses the broker.
 *
 * <p>The first {@link #start()} formats the storage with a cluster id generated here: it copies
 * storage that {@code kafka.tools.StorageTool format} formatted once per JVM in its own short-lived
 * JVM (it calls {@code exit}), see {@code KafkaStorageTemplates}. Then it runs {@code kafka.Kafka
 * server.properties}. The broker logs at INFO to {@code server.log} in the data directory, not to
 * the console.
 *
 * <p>After {@link #kill()}, the next {@link #start()} takes a few seconds longer than after {@link
 * #stop()}: the controller accepts the new broker incarnation only once the old one's session has
 * expired. The session timeout is therefore shortened to 4 s ({@code broker.session.timeout.ms},
 * default 9 s; override it with {@link Builder#brokerProperty(String, String)}).
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.builder().start()) {
 *   kafka.createTopic("orders", 3);
 *   // producers and consumers use kafka.bootstrapServers()
 * }
 * }</pre>
 *
 * <p>Thread-safe: lifecycle methods are synchronized.
 */
public final class KafkaBroker extends ChildService<KafkaBroker> {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);

  private final Path dataDir;
  private final int port;
  private final int controllerPort;
  private final String heap;
  private final KafkaBrokerConfig config;
  private final Duration startupTimeout;

  private KafkaBroker(Builder builder, Path dataDir, boolean ownsDataDir, int port) {
    super("[kafka port=" + port + "]", dataDir, ownsDataDir, builder.stopTimeout());
    this.dataDir = dataDir;
    this.port = port;
    this.controllerPort =
        builder.controllerPort > 0 ? builder.controllerPort : FreePorts.findFreePort();
    this.heap = builder.heap;
    this.config =
        new KafkaBrokerConfig(
            port,
            controllerPort,
            KafkaBrokerLauncher.logDirs(dataDir),
            builder.partitions,
            builder.brokerProperties);
    this.startupTimeout = builder.startupTimeout();
  }

  /**
   * Starts building a broker with the defaults: fresh temp data dir, free ports, {@code -Xmx512m},
   * 3 partitions per auto-created topic.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the broker and waits until an admin client can describe the cluster. The first start
   * formats the storage; later starts (after {@link #stop()} or {@link #kill()}) reuse the data and
   * the ports.
   *
   * @throws LocalStackException if formatting or startup fails or times out, with the tail of
   *     {@code server.log}
   */
  @Override
  protected ChildProcess launch() {
    long begin = System.nanoTime();
    String classpath = BrokerClasspath.read();
    KafkaBrokerLauncher launcher =
        new KafkaBrokerLauncher(dataDir, config, heap, startupTimeout, logPrefix());
    long formatMillis = launcher.prepare(classpath);
    long launch = System.nanoTime();
    ChildProcess process = launcher.launch(classpath);
    launcher.awaitReady(process, bootstrapServers(), launch);
    LOG.info(
        "{} started in {} ms (format {} ms, broker ready {} ms), pid {}, log {}",
        logPrefix(),
        millisSince(begin),
        formatMillis,
        millisSince(launch),
        process.pid(),
        serverLog());
    return process;
  }

  /** The bootstrap address {@code 127.0.0.1:<port>}; it stays the same across restarts. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The PLAINTEXT listener port. */
  public int port() {
    return port;
  }

  /** The CONTROLLER listener port. */
  public int controllerPort() {
    return controllerPort;
  }

  /** The data directory: {@code server.properties}, {@code server.log}, {@code kraft/}. */
  public Path dataDir() {
    return dataDir;
  }

  /** The broker's log file. */
  public Path serverLog() {
    return KafkaBrokerLauncher.serverLog(dataDir);
  }

  /** The effective broker properties, unmodifiable. */
  public Map<String, String> brokerProperties() {
    return config.properties();
  }

  /**
   * Creates a topic with replication factor 1 and waits until every partition has a leader.
   *
   * @param name the topic
   * @param partitions the number of partitions
   * @throws LocalStackException if creation fails (also if the topic exists) or times out
   */
  public void createTopic(String name, int partitions) {
    try (Admin admin =
        Admin.create(
            KafkaBrokerLauncher.adminProperties(bootstrapServers(), "local-stack-create-topic"))) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!allPartitionsLed(admin, name)) {
        if (System.nanoTime() - deadline > 0) {
          throw new LocalStackException(logPrefix() + " topic " + name + " has no leaders");
        }
        ChildProcess.pauseBriefly();
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new LocalStackException(logPrefix() + " cannot create topic " + name + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalStackException("interrupted while creating topic " + name, e);
    }
  }

  private boolean allPartitionsLed(Admin admin, String topic)
      throws InterruptedException, ExecutionException, TimeoutException {
    TopicDescription description;
    try {
      description =
          admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
        // Created, but the broker's metadata cache has not caught up with the controller yet.
        return false;
      }
      throw e;
    }
    return description.partitions().stream().allMatch(partition -> partition.leader() != null);
  }

  /**
   * Configures a {@link KafkaBroker}.
   *
   * <p>Not thread-safe; use from one thread.
   */
  public static final class Builder extends ChildService.Builder<Builder, KafkaBroker> {

    private int controllerPort;
    private String heap = "512m";
    private int partitions = 3;
    private final Map<String, String> brokerProperties = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets the data directory (default: a fresh temp dir).
     *
     * @param dataDir the directory; created if missing, and then (only then) deleted on close
     * @return this builder
     */
    public Builder dataDir(Path dataDir) {
      return directory(dataDir, "dataDir");
    }

    /**
     * Sets the CONTROLLER port (default: a free port).
     *
     * @param controllerPort the port
     * @return this builder
     */
    public Builder controllerPort(int controllerPort) {
      this.controllerPort = controllerPort;
      return this;
    }

    /**
     * Sets the broker JVM's {@code -Xmx} (default {@code 512m}).
     *
     * @param heap the heap size, e.g. {@code 1g}
     * @return this builder
     */
    public Builder heap(String heap) {
      this.heap = Objects.requireNonNull(heap, "heap");
      return this;
    }

    /**
     * Sets {@code num.partitions} for auto-created topics (default 3).
     *
     * @param partitions at least 1
     * @return this builder
     */
    public Builder partitions(int partitions) {
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be at least 1: " + partitions);
      }
      this.partitions = partitions;
      return this;
    }

    /**
     * Adds or overrides a broker property, e.g. {@code message.max.bytes}.
     *
     * @param key the property
     * @param value its value
     * @return this builder
     */
    public Builder brokerProperty(String key, String value) {
      brokerProperties.put(
          Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Builds the broker without starting it; ports are chosen now.
     *
     * @return a stopped broker
     */
    @Override
    public KafkaBroker build() {
      boolean owns = ownsDirectory();
      Path dir = createDirectory("kafka-");
      return new KafkaBroker(this, dir, owns, portOrFree());
    }
  }
}
