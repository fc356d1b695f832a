package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.ChildProcess;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pipeline of Debezium's MariaDB connector and EventRouter on Kafka Connect switched to the relay
 * with {@code outbox-relay position import}, while the application keeps committing: every event
 * committed is in Kafka (by id), each aggregate's events in order, what the relay publishes again
 * is a tail of what Connect published after its last offset flush, and records of both look alike.
 * The worker is a real Connect 4.1.1 in distributed mode (offsets in its offsets topic) or
 * standalone (offsets in a file); the relay runs from its distribution with the shipped example
 * settings. Bad input is refused with one line and exit 2, and changes nothing.
 */
class ConnectToRelaySwitchIT {

  @TempDir Path dir;
  private OutboxDatabase db;
  private final List<RelayProcess> relays = new ArrayList<>();
  private KafkaConnectWorker worker;
  private ChildProcess distributed;
  private Writer writer;
  private final Path logDir = Path.of("target", "it-logs");

  @AfterEach
  void tearDown() throws Exception {
    if (writer != null) {
      writer.stop();
    }
    if (worker != null) {
      worker.close();
    }
    if (distributed != null) {
      distributed.close();
    }
    relays.forEach(RelayProcess::close);
    if (db != null) {
      db.close();
    }
  }

  @Test
  void aRelayContinuesADistributedConnectPipelineWithNothingLost() throws Exception {
    LocalStack stack = LocalStack.shared();
    String bootstrap = stack.kafka().bootstrapServers();
    String name = setUp();
    String prefix = "s-" + name + ".";
    String offsetsTopic = name + "-connect-offsets";
    distributed =
        distributedWorker(
            name + "-connect", dir.resolve("worker"), bootstrap, offsetsTopic, "3000");
    post(dir.resolve("worker"), connector(name, prefix, bootstrap));
    distributed.awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, Duration.ofSeconds(120));
    writer = Writer.start(db);
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> writer.committed() >= 300);
    distributed.awaitLogLine(l -> l.contains("Committing offsets for"), Duration.ofSeconds(60));
    // The log line comes before the offsets topic has the record: kill only once it has.
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> holdsOffsetOf(bootstrap, offsetsTopic, name));
    distributed.kill();
    // Killed: no last flush, so what Connect published after its last offset commit repeats.
    distributed.waitFor(Duration.ofSeconds(30));
    Map<TopicPartition, Long> connectEnd = endOffsets(bootstrap, prefix);
    RelaySettings settings = example(bootstrap, name, prefix);
    Path config = settings.writeTo(dir.resolve("relay.properties"));

    // Bad input: one line, exit 2, nothing stored.
    assertRefused(
        "no offset of connector 'other'",
        "position",
        "import",
        "--config",
        config.toString(),
        "--from-connect-topic",
        offsetsTopic,
        "--connector",
        "other",
        "--yes");
    assertRefused(
        "does not exist",
        "position",
        "import",
        "--config",
        config.toString(),
        "--from-connect-topic",
        name + "-no-such-topic",
        "--connector",
        name,
        "--yes");
    Path badColumns =
        example(bootstrap, name, prefix)
            .with("source.column.event.type", "eventtype")
            .writeTo(dir.resolve("bad-columns.properties"));
    assertRefused(
        "has no column eventtype",
        "position",
        "import",
        "--config",
        badColumns.toString(),
        "--from-connect-topic",
        offsetsTopic,
        "--connector",
        name,
        "--yes");

    String dryRun =
        command(
            "dry-run",
            0,
            "position",
            "import",
            "--config",
            config.toString(),
            "--from-connect-topic",
            offsetsTopic,
            "--connector",
            name);
    assertThat(dryRun).contains("dry run: nothing changed");
    assertThat(storedRowsOrZero()).isZero();
    String imported =
        command(
            "import",
            0,
            "position",
            "import",
            "--config",
            config.toString(),
            "--from-connect-topic",
            offsetsTopic,
            "--connector",
            name,
            "--yes");
    assertThat(imported).contains("imported: relay " + name + " starts at ");
    assertThat(storedRows()).isOne();

    RelayProcess relay = relay(name, config);
    relay.awaitReady();
    assertThat(relay.log()).contains("has a stored position");
    long atStart = writer.committed();
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.committed() >= atStart + 200);
    writer.stop();

    Outcome outcome = check(bootstrap, prefix, connectEnd, writer.events());
    System.out.printf(
        "switch: %d events committed, %d records from Connect, %d from the relay, %d published"
            + " twice, 0 lost%n",
        writer.events().size(), outcome.fromConnect(), outcome.fromRelay(), outcome.duplicates());
    assertThat(outcome.fromConnect()).isPositive();
    assertThat(outcome.fromRelay()).isPositive();
  }

  @Test
  void aRelayContinuesFromAStandaloneOffsetsFileAndRefusesAPurgedOne() throws Exception {
    LocalStack stack = LocalStack.shared();
    String bootstrap = stack.kafka().bootstrapServers();
    String name = setUp();
    String prefix = "f-" + name + ".";
    Path offsets = dir.resolve("worker").resolve("connect.offsets");
    worker =
        KafkaConnectWorker.builder(name + "-standalone", dir.resolve("worker"), workerClasspath())
            .logDir(Files.createDirectories(logDir))
            .jvmOptions(List.of("-XX:+UseSerialGC"))
            .pluginPath(List.of(debeziumPluginPath()))
            .bootstrapServers(bootstrap)
            .workerProperty("offset.flush.interval.ms", "1000")
            .connector(connector(name, prefix, bootstrap))
            .start();
    worker.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, Duration.ofSeconds(120));
    writer = Writer.start(db);
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> writer.committed() >= 100);
    // Kafka's FileOffsetBackingStore truncates the file and then writes it: a worker killed in
    // between leaves a file nobody can read. Kill it once the file has been written.
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> readFile(offsets).size() == 1);
    worker.process().kill();
    worker.process().waitFor(Duration.ofSeconds(30)); // a dying worker may still write its file
    Map<TopicPartition, Long> connectEnd = endOffsets(bootstrap, prefix);
    Path config = example(bootstrap, name, prefix).writeTo(dir.resolve("relay.properties"));

    Path purged = dir.resolve("purged.offsets");
    rewriteFile(offsets, purged, "\"file\":\"", "\"file\":\"gone-");
    assertRefused(
        "is no longer on",
        "position",
        "import",
        "--config",
        config.toString(),
        "--from-offsets-file",
        purged.toString(),
        "--connector",
        name,
        "--yes");
    assertRefused(
        "no offset of connector 'other'",
        "position",
        "import",
        "--config",
        config.toString(),
        "--from-offsets-file",
        offsets.toString(),
        "--connector",
        "other",
        "--yes");

    command(
        "import-file",
        0,
        "position",
        "import",
        "--config",
        config.toString(),
        "--from-offsets-file",
        offsets.toString(),
        "--connector",
        name,
        "--yes");
    relay(name, config).awaitReady();
    long atStart = writer.committed();
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.committed() >= atStart + 100);
    writer.stop();
    Outcome outcome = check(bootstrap, prefix, connectEnd, writer.events());
    System.out.printf(
        "switch from a file: %d events, %d published twice, 0 lost%n",
        writer.events().size(), outcome.duplicates());
  }

  /** A database with Debezium's outbox table; returns a unique name. */
  private String setUp() throws IOException {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    db.admin(
        ProjectFiles.sqlStatements("config/examples/debezium-outbox-schema.sql")
            .toArray(String[]::new));
    db.admin("GRANT SELECT ON " + db.name() + ".outbox TO '" + db.relayUser() + "'@'127.0.0.1'");
    return "sw" + Long.toHexString(System.nanoTime() & 0xffffff);
  }

  private long storedRows() {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM " + db.name() + ".outbox_relay_offsets"))
        .longValue();
  }

  private void assertRefused(String expected, String... args) {
    long before = storedRowsOrZero();
    String out = command("refused", 2, args);
    List<String> lines =
        out.lines().filter(l -> l.startsWith("outbox-relay position import: ")).toList();
    assertThat(lines).as(out).hasSize(1);
    assertThat(lines.get(0)).contains(expected);
    assertThat(storedRowsOrZero()).isEqualTo(before);
  }

  private long storedRowsOrZero() {
    Object exists =
        db.adminQuery(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
                + db.name()
                + "' AND TABLE_NAME = 'outbox_relay_offsets'");
    return ((Number) exists).longValue() == 0 ? 0 : storedRows();
  }

  /** Runs an operator command to its end; returns its output. */
  private String command(String label, int exitCode, String... args) {
    RelayProcess p =
        RelayProcess.start(
            "cmd-" + label + "-" + UUID.randomUUID().toString().substring(0, 8), logDir, args);
    assertThat(p.waitFor(Duration.ofSeconds(120))).as(p.log()).isEqualTo(exitCode);
    return p.log();
  }

  private RelayProcess relay(String name, Path config) {
    RelayProcess p = RelayProcess.start(name + "-relay", logDir, "run", "--config", "" + config);
    relays.add(p);
    return p;
  }

  /** The shipped example settings with this test's database, broker, name and topic prefix. */
  private RelaySettings example(String bootstrap, String name, String topicPrefix)
      throws IOException {
    RelaySettings settings = RelaySettings.cdc(db, bootstrap, name);
    Set<String> connection =
        Set.of(
            "source.host",
            "source.port",
            "source.database",
            "source.user",
            "source.password",
            "kafka.bootstrap.servers",
            "cdc.server.id");
    Properties example = new Properties();
    try (Reader in =
        Files.newBufferedReader(
            ProjectFiles.root().resolve("config/examples/debezium-outbox.properties"),
            StandardCharsets.UTF_8)) {
      example.load(in);
    }
    for (String key : example.stringPropertyNames()) {
      if (!connection.contains(key)) {
        settings.with(key, example.getProperty(key));
      }
    }
    return settings.with("router.topic.template", topicPrefix + "outbox.event.${aggregate_type}");
  }

  /** Debezium's connector with its EventRouter, routed under the test's prefix. */
  private Map<String, Object> connector(String name, String topicPrefix, String bootstrap) {
    return Map.of(
        "name",
        name,
        "config",
        DebeziumOutboxCompatibilityIT.debeziumOutboxConnector(db, name, topicPrefix, bootstrap));
  }

  /**
   * A Connect worker in distributed mode ({@code ConnectDistributed}, a child JVM): its
   * configuration, offsets and status in topics of the broker, plugins from the plugin path, the
   * REST API on a free port of 127.0.0.1.
   */
  private ChildProcess distributedWorker(
      String process, Path workerDir, String bootstrap, String offsetsTopic, String flushMs)
      throws IOException {
    Files.createDirectories(workerDir);
    Map<String, String> p = new java.util.TreeMap<>();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", process);
    p.put("offset.storage.topic", offsetsTopic);
    p.put("config.storage.topic", process + "-configs");
    p.put("status.storage.topic", process + "-status");
    p.put("offset.storage.replication.factor", "1");
    p.put("config.storage.replication.factor", "1");
    p.put("status.storage.replication.factor", "1");
    p.put("offset.flush.interval.ms", flushMs);
    p.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    p.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    p.put("plugin.discovery", "service_load");
    p.put("plugin.path", debeziumPluginPath().toAbsolutePath().toString());
    p.put("listeners", "http://127.0.0.1:" + FreePorts.findFreePort());
    Path workerFile = workerDir.resolve("worker.properties");
    Files.writeString(
        workerFile,
        p.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
    Path log4j = workerDir.resolve("log4j2.xml");
    Files.writeString(log4j, KafkaConnectWorker.LOG4J2_XML);
    return ChildProcess.builder(
            ChildProcess.javaCommand(
                "384m",
                List.of("-XX:+UseSerialGC", "-Dlog4j2.configurationFile=" + log4j),
                workerClasspath(),
                "org.apache.kafka.connect.cli.ConnectDistributed",
                List.of(workerFile.toString())))
        .name(process)
        .directory(workerDir)
        .logFile(Files.createDirectories(logDir).resolve(process + ".log"))
        .start();
  }

  /** Creates the connector on a distributed worker, once its REST API answers. */
  private static void post(Path workerDir, Map<String, Object> connector) throws Exception {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(workerDir.resolve("worker.properties"))) {
      p.load(in);
    }
    URI uri = URI.create(p.getProperty("listeners") + "/connectors");
    String body = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(connector);
    HttpClient http = HttpClient.newHttpClient();
    String name = connector.get("name").toString();
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              // A POST answered late may have created it: look first.
              HttpResponse<String> get =
                  http.send(
                      HttpRequest.newBuilder(URI.create(uri + "/" + name))
                          .timeout(Duration.ofSeconds(10))
                          .build(),
                      HttpResponse.BodyHandlers.ofString());
              if (get.statusCode() == 200) {
                return true;
              }
              return http.send(
                          HttpRequest.newBuilder(uri)
                              .header("Content-Type", "application/json")
                              .POST(HttpRequest.BodyPublishers.ofString(body))
                              .timeout(Duration.ofSeconds(10))
                              .build(),
                          HttpResponse.BodyHandlers.ofString())
                      .statusCode()
                  == 201;
            });
  }

  @SuppressWarnings("unchecked")
  private static Map<byte[], byte[]> readFile(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file);
        ObjectInputStream objects = new ObjectInputStream(in)) {
      return (Map<byte[], byte[]>) objects.readObject();
    }
  }

  /** Copies an offsets file with a text replaced in every value. */
  private static void rewriteFile(Path from, Path to, String text, String replacement)
      throws Exception {
    Map<byte[], byte[]> raw = readFile(from);
    HashMap<byte[], byte[]> changed = new HashMap<>();
    raw.forEach(
        (k, v) ->
            changed.put(
                k,
                v == null
                    ? null
                    : new String(v, StandardCharsets.UTF_8)
                        .replace(text, replacement)
                        .getBytes(StandardCharsets.UTF_8)));
    try (OutputStream out = Files.newOutputStream(to);
        ObjectOutputStream objects = new ObjectOutputStream(out)) {
      objects.writeObject(changed);
    }
  }

  /** What the switch cost, from Kafka. */
  private record Outcome(int fromConnect, int fromRelay, int duplicates) {}

  /**
   * Every committed event in Kafka, each aggregate in order, what was published twice a tail of
   * Connect's records that the relay published first, and records from both alike.
   */
  private static Outcome check(
      String bootstrap,
      String prefix,
      Map<TopicPartition, Long> connectEnd,
      List<Writer.Event> committed) {
    Set<String> ids = committed.stream().map(Writer.Event::id).collect(Collectors.toSet());
    List<ConsumerRecord<byte[], byte[]>> records = readAll(bootstrap, prefix, ids);
    Map<String, List<ConsumerRecord<byte[], byte[]>>> byId = new HashMap<>();
    records.forEach(r -> byId.computeIfAbsent(id(r), k -> new ArrayList<>()).add(r));
    assertThat(byId.keySet()).as("lost events").containsAll(ids);

    Map<String, Long> sequence = new HashMap<>();
    committed.forEach(e -> sequence.put(e.id(), e.sequence()));
    Map<String, List<ConsumerRecord<byte[], byte[]>>> byAggregate =
        records.stream()
            .sorted(Comparator.comparingLong(ConsumerRecord::offset))
            .collect(Collectors.groupingBy(r -> r.topic() + "/" + new String(r.key())));
    int fromConnect = 0;
    int fromRelay = 0;
    int duplicates = 0;
    Set<String> headerLayouts = new LinkedHashSet<>();
    for (Map.Entry<String, List<ConsumerRecord<byte[], byte[]>>> a : byAggregate.entrySet()) {
      List<String> connectIds = new ArrayList<>();
      List<String> relayIds = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : a.getValue()) {
        long end = connectEnd.getOrDefault(new TopicPartition(r.topic(), r.partition()), 0L);
        (r.offset() < end ? connectIds : relayIds).add(id(r));
        headerLayouts.add(
            StreamSupport.stream(r.headers().spliterator(), false)
                .map(h -> h.key())
                .collect(Collectors.joining(",")));
      }
      fromConnect += connectIds.size();
      fromRelay += relayIds.size();
      assertInOrder(a.getKey() + " from Connect", connectIds, sequence);
      assertInOrder(a.getKey() + " from the relay", relayIds, sequence);
      // What the relay published again is exactly a tail of Connect's, and comes first.
      Set<String> again = new LinkedHashSet<>(relayIds);
      again.retainAll(Set.copyOf(connectIds));
      List<String> relayHead = relayIds.subList(0, again.size());
      List<String> connectTail =
          connectIds.subList(connectIds.size() - again.size(), connectIds.size());
      assertThat(relayHead).as(a.getKey() + ": republished").containsExactlyElementsOf(connectTail);
      duplicates += again.size();
      for (String id : again) {
        List<ConsumerRecord<byte[], byte[]>> both = byId.get(id);
        assertThat(content(both.get(1))).isEqualTo(content(both.get(0)));
      }
    }
    assertThat(headerLayouts).as("header names of every record").containsExactly("id");
    assertThat(records).hasSize(ids.size() + duplicates);
    return new Outcome(fromConnect, fromRelay, duplicates);
  }

  private static void assertInOrder(String what, List<String> ids, Map<String, Long> sequenceById) {
    List<Long> sequences = ids.stream().map(sequenceById::get).toList();
    List<Long> sorted = new ArrayList<>(sequences);
    Collections.sort(sorted);
    assertThat(sequences).as(what).containsExactlyElementsOf(sorted).doesNotHaveDuplicates();
  }

  private static String id(ConsumerRecord<byte[], byte[]> r) {
    return new String(r.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
  }

  private static String content(ConsumerRecord<byte[], byte[]> r) {
    HexFormat hex = HexFormat.of();
    return r.topic()
        + " p"
        + r.partition()
        + " "
        + hex.formatHex(r.key())
        + " "
        + StreamSupport.stream(r.headers().spliterator(), false)
            .map(h -> h.key() + ":" + hex.formatHex(h.value()))
            .collect(Collectors.joining(","))
        + " "
        + hex.formatHex(r.value());
  }

  /**
   * Whether Connect's offsets topic holds a committed offset (a non-null value) of the connector.
   */
  private static boolean holdsOffsetOf(String bootstrap, String topic, String connector) {
    byte[] name = ("[\"" + connector + "\",").getBytes(StandardCharsets.UTF_8);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(i.topic(), i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      boolean found = false;
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() != null
              && r.value() != null
              && java.util.Arrays.equals(r.key(), 0, name.length, name, 0, name.length)) {
            found = true;
          }
        }
      }
      return found;
    }
  }

  private static Map<TopicPartition, Long> endOffsets(String bootstrap, String prefix) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
      List<TopicPartition> partitions =
          consumer.listTopics().entrySet().stream()
              .filter(e -> e.getKey().startsWith(prefix))
              .flatMap(e -> e.getValue().stream())
              .map(i -> new TopicPartition(i.topic(), i.partition()))
              .toList();
      return consumer.endOffsets(partitions);
    }
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(
      String bootstrap, String prefix, Set<String> ids) {
    Map<String, ConsumerRecord<byte[], byte[]>> records = new LinkedHashMap<>();
    Set<String> seen = new java.util.HashSet<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
      consumer.subscribe(Pattern.compile(Pattern.quote(prefix) + ".*"));
      Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  if (records.putIfAbsent(r.topic() + "/" + r.partition() + "/" + r.offset(), r)
                      == null) {
                    seen.add(id(r));
                  }
                }
                return seen.containsAll(ids);
              });
      long quietUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < quietUntil) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          records.putIfAbsent(r.topic() + "/" + r.partition() + "/" + r.offset(), r);
        }
      }
    }
    return List.copyOf(records.values());
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "read-" + UUID.randomUUID());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * The application: transactions of one to three events over six aggregates of two types, one
   * after another, each event remembered once its transaction committed.
   */
  static final class Writer {
    record Event(String id, String aggregate, long sequence) {}

    private final List<Event> committed = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread thread;
    private volatile Throwable failure;

    static Writer start(OutboxDatabase db) {
      Writer w = new Writer();
      w.thread = new Thread(() -> w.write(db), "writer");
      w.thread.start();
      return w;
    }

    private void write(OutboxDatabase db) {
      long[] seq = new long[6];
      try (Connection c = db.app();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)"
                      + " VALUES (?, ?, ?, ?, ?)")) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
          List<Event> tx = new ArrayList<>();
          for (int i = 0, n = random.nextInt(1, 4); i < n; i++) {
            int a = random.nextInt(6);
            String type = a % 2 == 0 ? "order" : "customer";
            Event e = new Event(UUID.randomUUID().toString(), type + "-" + a, ++seq[a]);
            ps.setString(1, e.id());
            ps.setString(2, type);
            ps.setString(3, e.aggregate());
            ps.setString(4, "Changed");
            ps.setString(5, "{\"seq\":" + e.sequence() + "}");
            ps.executeUpdate();
            tx.add(e);
          }
          c.commit();
          committed.addAll(tx);
          Thread.sleep(5);
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    long committed() {
      if (failure != null) {
        throw new IllegalStateException("the writer failed", failure);
      }
      return committed.size();
    }

    List<Event> events() {
      return List.copyOf(committed);
    }

    void stop() throws InterruptedException {
      stop.set(true);
      thread.join(10_000);
      committed();
    }
  }

  private static Path debeziumPluginPath() {
    return Path.of(requiredProperty("outbox.connect.debezium.plugin")).getParent();
  }

  private static String workerClasspath() throws IOException {
    return Files.readString(Path.of(requiredProperty("outbox.connect.worker.classpath"))).strip();
  }

  private static String requiredProperty(String key) {
    String value = System.getProperty(key);
    if (value == null) {
      throw new IllegalStateException(
          key + " is not set: run this test with Maven (failsafe sets it), after mvn package");
    }
    return value;
  }
}
