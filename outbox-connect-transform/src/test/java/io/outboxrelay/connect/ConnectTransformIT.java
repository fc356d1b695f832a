package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transform in a real Kafka Connect 4.1.1 worker (standalone, a child JVM) with Debezium's
 * MariaDB connector on the private binlog MariaDB, next to the relay (run from its distribution) on
 * the same outbox table: both must publish the same records, byte for byte, nothing for updates and
 * deletes, and stop at an event that cannot be routed. The transform comes from the plugin archive
 * {@code mvn package} built, found with {@code plugin.discovery=service_load}; the worker's
 * classpath holds neither it nor Debezium.
 */
class ConnectTransformIT {

  private static final String TRANSFORM = OutboxRouterTransform.class.getName();

  @TempDir Path dir;
  private OutboxDatabase db;
  private RelayProcess relay;
  private KafkaConnectWorker worker;

  @AfterEach
  void tearDown() {
    if (worker != null) {
      worker.close();
    }
    if (relay != null) {
      relay.close(); // before the database: a live relay blocks its drop
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void publishesWhatTheRelayPublishesByteForByteNothingForUpdatesOrDeletesAndStopsAtPoison()
      throws Exception {
    LocalStack stack = LocalStack.shared();
    String bootstrap = stack.kafka().bootstrapServers();
    db = OutboxDatabase.on(stack.mariaDb());
    String name = "ct" + Long.toHexString(System.nanoTime() & 0xffffff);
    String relayPrefix = RelaySettings.topicPrefix(name + "-relay");
    String connectPrefix = RelaySettings.topicPrefix(name + "-connect");
    Path logDir = Files.createDirectories(Path.of("target", "it-logs"));

    // Both start before any row is written: each begins at the binlog position it finds.
    relay =
        RelayProcess.start(
            name + "-relay",
            logDir,
            "run",
            "--config",
            RelaySettings.cdc(db, bootstrap, name + "-relay")
                .writeTo(dir.resolve("relay.properties"))
                .toString());
    worker =
        KafkaConnectWorker.builder(name + "-connect", dir.resolve("worker"), workerClasspath())
            .logDir(logDir)
            .heap("384m")
            .jvmOptions(List.of("-XX:+UseSerialGC"))
            .pluginPath(List.of(unpackPlugin(), debeziumPluginPath()))
            .bootstrapServers(bootstrap)
            .workerProperty("offset.flush.interval.ms", "1000")
            .connector(connector(name, connectPrefix + "${aggregate_type}", bootstrap))
            .start();
    relay.awaitReady();
    worker.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, Duration.ofSeconds(90));
    JsonNode plugin = transformPlugin();
    assertThat(plugin).as("the transform, found in plugin.path by service_load").isNotNull();
    assertThat(plugin.path("version").asText()).isNotIn("", "unknown", "undefined");

    Ledger relayLedger = new Ledger(relayPrefix);
    Ledger connectLedger = new Ledger(connectPrefix);
    for (List<TestEvent> tx : transactions()) {
      write(tx, relayLedger, connectLedger);
    }
    // Application headers: after the relay's own, in member order, byte for byte.
    TestEvent withHeaders = TestEvent.of("order", "o-headers", 1);
    writeWithHeaders(
        withHeaders,
        "{\"tenant\": \"acme\", \"note\": \"caf\\u00e9 \\ud83d\\ude00\", \"empty\": \"\"}",
        relayLedger,
        connectLedger);
    // Updates and deletes of outbox rows (and the deletes' tombstones) publish nothing.
    db.admin(
        "UPDATE outbox_events SET payload = '{\"changed\":true}', event_type = 'Changed'"
            + " WHERE id % 2 = 0",
        "DELETE FROM outbox_events WHERE id % 3 = 0");
    // A marker after them: once it arrived, both pipelines have read past the changes.
    write(List.of(TestEvent.of("order", "o-marker", 1)), relayLedger, connectLedger);

    List<ConsumedRecord> fromRelay = readAll(bootstrap, relayPrefix, relayLedger);
    List<ConsumedRecord> fromConnect = readAll(bootstrap, connectPrefix, connectLedger);

    for (Ledger.Result result :
        List.of(relayLedger.check(fromRelay), connectLedger.check(fromConnect))) {
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.unexpected()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
    }
    assertThat(canonical(fromConnect, connectPrefix))
        .as("Connect's records, compared with the relay's for the same rows")
        .hasSize(relayLedger.size())
        .containsExactlyElementsOf(canonical(fromRelay, relayPrefix));
    assertThat(fromConnect)
        .extracting(ConsumedRecord::valueAsString)
        .noneMatch(v -> v.contains("changed"));
    assertThat(
            fromConnect.stream()
                .filter(r -> withHeaders.eventId().equals(r.header("id")))
                .findFirst()
                .orElseThrow()
                .headers()
                .keySet())
        .containsExactly(
            "id", "event_type", "aggregate_type", "aggregate_id", "tenant", "note", "empty");
    String status = "/connectors/" + name + "/status";
    assertThat(worker.get(status).path("tasks").path(0).path("state").asText())
        .as("the task after the updates and deletes: %s", worker.get(status))
        .isEqualTo("RUNNING");

    // An event that cannot be routed (its topic would be illegal) stops both at it, naming it.
    TestEvent poison =
        new TestEvent(UUID.randomUUID().toString(), "no topic!", "p-1", "Happened", 1, "{}");
    write(List.of(poison));
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isEqualTo(1);
    assertThat(relay.log()).contains("event_id=" + poison.eventId());
    JsonNode task =
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> worker.get(status).path("tasks").path(0),
                t -> t.path("state").asText().equals("FAILED"));
    assertThat(task.path("trace").asText())
        .contains("cannot publish event_id=" + poison.eventId())
        .contains("not a legal Kafka topic name")
        .contains("poison.action=skip");
  }

  /** Transactions of one to three events over two aggregate types, payloads byte-exact. */
  private static List<List<TestEvent>> transactions() {
    List<List<TestEvent>> transactions = new ArrayList<>();
    long[] seq = new long[4];
    for (int t = 0; t < 8; t++) {
      List<TestEvent> tx = new ArrayList<>();
      for (int k = 0; k <= t % 3; k++) {
        int aggregate = (t + k) % 4;
        String type = aggregate % 2 == 0 ? "order" : "invoice";
        TestEvent e = TestEvent.of(type, type + "-" + aggregate, ++seq[aggregate]);
        tx.add(
            new TestEvent(
                e.eventId(),
                e.aggregateType(),
                e.aggregateId(),
                type.equals("order") ? "OrderChanged" : "InvoiceIssued",
                e.sequence(),
                e.payload()));
      }
      transactions.add(tx);
    }
    return transactions;
  }

  private void write(List<TestEvent> tx, Ledger... ledgers) throws Exception {
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, tx);
    }
    for (Ledger ledger : ledgers) {
      ledger.expect(tx);
    }
  }

  private void writeWithHeaders(TestEvent e, String headers, Ledger... ledgers) throws Exception {
    try (Connection c = db.app();
        java.sql.PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type,"
                    + " payload, headers) VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, e.eventId());
      ps.setString(2, e.aggregateType());
      ps.setString(3, e.aggregateId());
      ps.setString(4, e.eventType());
      ps.setString(5, e.payload());
      ps.setString(6, headers);
      ps.executeUpdate();
      c.commit();
    }
    for (Ledger ledger : ledgers) {
      ledger.expect(e);
    }
  }

  private static List<ConsumedRecord> readAll(String bootstrap, String prefix, Ledger ledger) {
    TopicReader reader = TopicReader.forPrefix(bootstrap, prefix);
    reader.readUntil(ledger::allArrived, Duration.ofSeconds(60));
    return reader.readAll(Duration.ofSeconds(2), Duration.ofSeconds(30));
  }

  /**
   * Each record as one line: topic without the pipeline's prefix, partition, key, headers in order,
   * value, all bytes in hex; sorted by topic, partition and offset.
   */
  private static List<String> canonical(List<ConsumedRecord> records, String prefix) {
    HexFormat hex = HexFormat.of();
    return records.stream()
        .sorted(
            Comparator.comparing(ConsumedRecord::topic)
                .thenComparingInt(ConsumedRecord::partition)
                .thenComparingLong(ConsumedRecord::offset))
        .map(
            r ->
                r.topic().substring(prefix.length())
                    + " p"
                    + r.partition()
                    + " key="
                    + hex.formatHex(r.key())
                    + " headers="
                    + r.headers().entrySet().stream()
                        .map(h -> h.getKey() + ":" + hex.formatHex(h.getValue()))
                        .collect(Collectors.joining(","))
                    + " value="
                    + hex.formatHex(r.value()))
        .toList();
  }

  /**
   * The connector, as the JSON body of {@code POST /connectors} (docs/kafka-connect.md shows the
   * same).
   */
  private Map<String, Object> connector(String name, String topicTemplate, String bootstrap) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    config.put("tasks.max", "1");
    config.put("database.hostname", db.host());
    config.put("database.port", String.valueOf(db.port()));
    config.put("database.user", db.relayUser());
    config.put("database.password", db.password());
    config.put(
        "database.server.id",
        String.valueOf(ThreadLocalRandom.current().nextInt(1_000_000, 2_000_000)));
    config.put("topic.prefix", name);
    config.put("database.include.list", db.name());
    config.put("table.include.list", db.name() + ".outbox_events");
    config.put(
        "column.include.list",
        db.name()
            + "\\.outbox_events\\.(id|event_id|aggregate_type|aggregate_id|event_type|payload"
            + "|aggregate_version|headers|tracingspancontext)");
    config.put("snapshot.mode", "no_data");
    config.put("snapshot.locking.mode", "none");
    config.put("include.schema.changes", "false");
    config.put("schema.history.internal.kafka.bootstrap.servers", bootstrap);
    config.put("schema.history.internal.kafka.topic", name + ".schema-history");
    config.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
    config.put("transforms", "outbox");
    config.put("transforms.outbox.type", TRANSFORM);
    config.put("transforms.outbox.router.topic.template", topicTemplate);
    return Map.of("name", name, "config", config);
  }

  private JsonNode transformPlugin() {
    for (JsonNode plugin : worker.get("/connector-plugins?connectorsOnly=false")) {
      if (TRANSFORM.equals(plugin.path("class").asText())) {
        return plugin;
      }
    }
    return null;
  }

  /** Unpacks the plugin archive built by {@code mvn package} into a plugin.path directory. */
  private Path unpackPlugin() throws IOException {
    Path archive = Path.of(requiredProperty("outbox.connect.plugin.zip"));
    Path pluginPath = Files.createDirectories(dir.resolve("plugins"));
    try (InputStream in = Files.newInputStream(archive);
        ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
        Path target = pluginPath.resolve(entry.getName()).normalize();
        assertThat(target.startsWith(pluginPath))
            .as("%s inside the plugin directory", target)
            .isTrue();
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(zip, target);
        }
      }
    }
    try (var files = Files.walk(pluginPath)) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".jar")))
          .as(
              "the plugin archive's jars: the transform, the change reader and the router,"
                  + " nothing Connect provides")
          .hasSize(3)
          .allMatch(
              f ->
                  f.startsWith("outbox-connect-transform-")
                      || f.startsWith("outbox-change-reader-")
                      || f.startsWith("outbox-event-router-"));
    }
    return pluginPath;
  }

  /** The directory that holds Debezium's MariaDB connector plugin (maven-dependency-plugin). */
  private static Path debeziumPluginPath() {
    return Path.of(requiredProperty("outbox.connect.debezium.plugin")).getParent();
  }

  /** Connect and its libraries, without this project's classes and without Debezium. */
  private static String workerClasspath() throws IOException {
    String classpath =
        Files.readString(Path.of(requiredProperty("outbox.connect.worker.classpath"))).strip();
    assertThat(classpath.split(":"))
        .extracting(e -> Path.of(e).getFileName().toString())
        .as("the worker's classpath")
        .noneMatch(f -> f.startsWith("outbox-") || f.startsWith("debezium-"))
        .anyMatch(f -> f.startsWith("connect-runtime-"));
    return classpath;
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
