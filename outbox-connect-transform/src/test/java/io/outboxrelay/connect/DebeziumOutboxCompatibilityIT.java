package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debezium's outbox table, unchanged, published by Debezium's own EventRouter and by the relay with
 * the shipped settings ({@code config/examples/debezium-outbox.properties}): every record equal in
 * topic, partition, key, value bytes and headers (names and bytes, in order).
 *
 * <p>Debezium's side is a real Kafka Connect 4.1.1 worker (standalone, a child JVM) with its
 * MariaDB connector 3.5.0.Final and {@code io.debezium.transforms.outbox.EventRouter} at its
 * defaults but for two settings: {@code route.topic.replacement} gets a prefix (both pipelines
 * share the broker) and {@code table.fields.additional.placement} places {@code timestamp} as a
 * header. Its key and value converters are Kafka's {@code StringConverter} (the payload column is
 * text), the header converter the worker's default ({@code SimpleHeaderConverter}), Debezium's
 * context headers off ({@code extended.headers.enabled=false}), and its OpenTelemetry a propagating
 * one without SDK ({@link PropagatingWorker}), so that the trace context passes through as the
 * relay passes it. The relay runs from its distribution, first in CDC mode on the table as it is,
 * then in polling mode after {@code config/mysql/debezium-outbox-polling.sql} added polling's
 * columns, while Debezium keeps publishing.
 */
class DebeziumOutboxCompatibilityIT {

  private static final String TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @TempDir Path dir;
  private OutboxDatabase db;
  private final List<RelayProcess> relays = new ArrayList<>();
  private KafkaConnectWorker worker;

  @AfterEach
  void tearDown() {
    if (worker != null) {
      worker.close();
    }
    relays.forEach(RelayProcess::close); // before the database: a live relay blocks its drop
    if (db != null) {
      db.close();
    }
  }

  /** One row of Debezium's table; {@code timestamp} null leaves the column's default. */
  private record Row(TestEvent event, String tracing, String timestamp) {}

  @Test
  void theRelayPublishesWhatDebeziumsEventRouterPublishesInCdcAndInPollingMode() throws Exception {
    LocalStack stack = LocalStack.shared();
    String bootstrap = stack.kafka().bootstrapServers();
    db = OutboxDatabase.on(stack.mariaDb());
    db.admin(
        ProjectFiles.sqlStatements("config/examples/debezium-outbox-schema.sql")
            .toArray(String[]::new));
    db.admin(grant("SELECT"));
    String name = "dz" + Long.toHexString(System.nanoTime() & 0xffffff);
    String debeziumPrefix = "d-" + name + ".";
    String cdcPrefix = "c-" + name + ".";
    String pollingPrefix = "p-" + name + ".";
    Path logDir = Files.createDirectories(Path.of("target", "it-logs"));

    RelayProcess cdc =
        relay(name + "-cdc", example(bootstrap, name + "-cdc", cdcPrefix), logDir, "cdc");
    worker =
        KafkaConnectWorker.builder(name + "-debezium", dir.resolve("worker"), workerClasspath())
            .logDir(logDir)
            .jvmOptions(List.of("-XX:+UseSerialGC"))
            .mainClass(PropagatingWorker.class.getName())
            .pluginPath(List.of(debeziumPluginPath()))
            .bootstrapServers(bootstrap)
            .workerProperty("offset.flush.interval.ms", "1000")
            .connector(debeziumConnector(name, debeziumPrefix, bootstrap))
            .start();
    cdc.awaitReady();
    worker.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, Duration.ofSeconds(120));

    // CDC: the table as Debezium's documentation lays it out.
    List<Row> first = rows("order", "customer");
    write(first);
    List<Record> fromDebezium = read(bootstrap, debeziumPrefix, first.size());
    List<Record> fromRelay = read(bootstrap, cdcPrefix, first.size());
    assertThat(fromDebezium).extracting(Record::id).containsExactlyInAnyOrderElementsOf(ids(first));
    assertThat(canonical(fromRelay, cdcPrefix))
        .as("the relay's records in CDC mode, compared with Debezium's for the same rows")
        .containsExactlyElementsOf(canonical(fromDebezium, debeziumPrefix));
    Record traced = byId(fromDebezium, first.get(0).event().eventId());
    assertThat(traced.headerNames())
        .containsExactly("traceparent", "tracestate", "id", "eventTimestamp");
    assertThat(byId(fromDebezium, first.get(2).event().eventId()).header("eventTimestamp"))
        .isEqualTo("2026-03-11T10:05:30.000100Z");
    cdc.close();

    // Polling: the migration adds polling's columns; the rows Debezium published are marked so.
    db.admin(
        ProjectFiles.sqlStatements("config/mysql/debezium-outbox-polling.sql")
            .toArray(String[]::new));
    db.admin("UPDATE outbox SET status = 'PUBLISHED', published_at = NOW(6)");
    db.admin(grant("SELECT, UPDATE"));
    int httpPort = FreePorts.findFreePort();
    RelaySettings polling =
        example(bootstrap, name + "-polling", pollingPrefix)
            .with("mode", "polling")
            .with("polling.interval", "50ms")
            .with("http.port", String.valueOf(httpPort));
    relay(name + "-polling", polling, logDir, "polling").awaitReady();
    List<Row> second = rows("invoice", "order");
    write(second);
    Set<String> secondIds = Set.copyOf(ids(second));
    List<Record> debeziumSecond =
        read(bootstrap, debeziumPrefix, first.size() + second.size()).stream()
            .filter(r -> secondIds.contains(r.id()))
            .toList();
    List<Record> fromPolling = read(bootstrap, pollingPrefix, second.size());
    assertThat(byAggregate(fromPolling, pollingPrefix))
        .as("the relay's records in polling mode, per aggregate, compared with Debezium's")
        .isEqualTo(byAggregate(debeziumSecond, debeziumPrefix));
    // Its gauges read the table by the sequence column (relay_seq), not Debezium's event id.
    HttpClient http = HttpClient.newHttpClient();
    URI metrics = URI.create("http://127.0.0.1:" + httpPort + "/metrics");
    URI ready = URI.create("http://127.0.0.1:" + httpPort + "/health/ready");
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              HttpResponse<String> readiness =
                  http.send(HttpRequest.newBuilder(ready).build(), BodyHandlers.ofString());
              assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
              assertThat(
                      http.send(HttpRequest.newBuilder(metrics).build(), BodyHandlers.ofString())
                          .body())
                  .containsPattern("(?m)^outbox_relay_backlog_events(\\{[^}]*})? 0(\\.0)?$")
                  .containsPattern(
                      "(?m)^outbox_relay_oldest_unpublished_age_seconds(\\{[^}]*})? 0(\\.0)?$");
            });
    assertThat(
            worker
                .get("/connectors/" + name + "/status")
                .path("tasks")
                .path(0)
                .path("state")
                .asText())
        .isEqualTo("RUNNING");
  }

  /** Transactions of one to three rows over two aggregate types, some with a trace context. */
  private static List<Row> rows(String typeA, String typeB) throws IOException {
    String stored =
        stored("traceparent", TRACEPARENT, "tracestate", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    List<Row> rows = new ArrayList<>();
    long[] seq = new long[4];
    for (int i = 0; i < 12; i++) {
      int aggregate = i % 4;
      String type = aggregate % 2 == 0 ? typeA : typeB;
      TestEvent e = TestEvent.of(type, type + "-" + aggregate, ++seq[aggregate]);
      String tracing =
          i == 0
              ? stored
              : i == 5 ? stored("traceparent", TRACEPARENT.replace("-01", "-00")) : null;
      String timestamp = i == 2 ? "2026-03-11 10:05:30.000100" : null;
      rows.add(
          new Row(
              new TestEvent(
                  e.eventId(),
                  e.aggregateType(),
                  e.aggregateId(),
                  type.substring(0, 1).toUpperCase() + type.substring(1) + "Changed",
                  e.sequence(),
                  e.payload()),
              tracing,
              timestamp));
    }
    return rows;
  }

  /** What Debezium's outbox extension writes: {@code Properties.store} of the injected context. */
  private static String stored(String... keyValues) throws IOException {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    StringWriter w = new StringWriter();
    p.store(w, null);
    return w.toString();
  }

  /** Writes the rows, one to three per transaction, as the application would. */
  private void write(List<Row> rows) throws Exception {
    try (Connection c = db.app();
        PreparedStatement plain =
            c.prepareStatement(
                "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload,"
                    + " tracingspancontext) VALUES (?, ?, ?, ?, ?, ?)");
        PreparedStatement timed =
            c.prepareStatement(
                "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload,"
                    + " tracingspancontext, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      for (int i = 0; i < rows.size(); i++) {
        Row r = rows.get(i);
        PreparedStatement ps = r.timestamp() == null ? plain : timed;
        ps.setString(1, r.event().eventId());
        ps.setString(2, r.event().aggregateType());
        ps.setString(3, r.event().aggregateId());
        ps.setString(4, r.event().eventType());
        ps.setString(5, r.event().payload());
        ps.setString(6, r.tracing());
        if (r.timestamp() != null) {
          ps.setString(7, r.timestamp());
        }
        ps.executeUpdate();
        if (i % 3 != 1) {
          c.commit();
        }
      }
      c.commit();
    }
  }

  private String grant(String privileges) {
    return "GRANT "
        + privileges
        + " ON "
        + db.name()
        + ".outbox TO '"
        + db.relayUser()
        + "'@'127.0.0.1'";
  }

  private static List<String> ids(List<Row> rows) {
    return rows.stream().map(r -> r.event().eventId()).toList();
  }

  /**
   * The shipped example settings, with this test's database, broker, name and topic prefix, and
   * {@code timestamp} placed as Debezium's router places it here.
   */
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
    assertThat(example.getProperty("router.topic.template"))
        .isEqualTo("outbox.event.${aggregate_type}");
    return settings
        .with("router.topic.template", topicPrefix + "outbox.event.${aggregate_type}")
        .with("source.column.additional.placement", "timestamp:header:eventTimestamp");
  }

  private RelayProcess relay(String name, RelaySettings settings, Path logDir, String label) {
    RelayProcess p =
        RelayProcess.start(
            name,
            logDir,
            "run",
            "--config",
            settings.writeTo(dir.resolve(label + ".properties")).toString());
    relays.add(p);
    return p;
  }

  /** Debezium's connector with its EventRouter, as the JSON body of {@code POST /connectors}. */
  private Map<String, Object> debeziumConnector(String name, String topicPrefix, String bootstrap) {
    Map<String, String> config = debeziumOutboxConnector(db, name, topicPrefix, bootstrap);
    config.put(
        "transforms.outbox.table.fields.additional.placement", "timestamp:header:eventTimestamp");
    return Map.of("name", name, "config", config);
  }

  /**
   * Debezium's MariaDB connector on {@code db}'s table {@code outbox} with its EventRouter at its
   * defaults, routed under {@code topicPrefix}, with string converters and no context headers: the
   * settings under which its records equal the relay's. A mutable map, for a test to add to.
   */
  static Map<String, String> debeziumOutboxConnector(
      OutboxDatabase db, String name, String topicPrefix, String bootstrap) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    config.put("tasks.max", "1");
    config.put("database.hostname", db.host());
    config.put("database.port", String.valueOf(db.port()));
    config.put("database.user", db.relayUser());
    config.put("database.password", db.password());
    config.put(
        "database.server.id",
        String.valueOf(ThreadLocalRandom.current().nextInt(2_000_000, 3_000_000)));
    config.put("topic.prefix", name);
    config.put("database.include.list", db.name());
    config.put("table.include.list", db.name() + ".outbox");
    config.put("snapshot.mode", "no_data");
    config.put("snapshot.locking.mode", "none");
    config.put("include.schema.changes", "false");
    config.put("extended.headers.enabled", "false");
    config.put("schema.history.internal.kafka.bootstrap.servers", bootstrap);
    config.put("schema.history.internal.kafka.topic", name + ".schema-history");
    config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
    config.put("transforms", "outbox");
    config.put("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
    config.put(
        "transforms.outbox.route.topic.replacement", topicPrefix + "outbox.event.${routedByValue}");
    return config;
  }

  /** A record as read, every header kept in order (duplicates too). */
  private record Record(
      String topic,
      int partition,
      long offset,
      byte[] key,
      List<Map.Entry<String, byte[]>> headers,
      byte[] value) {

    String header(String name) {
      return headers.stream()
          .filter(h -> h.getKey().equals(name))
          .map(h -> new String(h.getValue(), StandardCharsets.UTF_8))
          .findFirst()
          .orElse(null);
    }

    String id() {
      return header("id");
    }

    List<String> headerNames() {
      return headers.stream().map(Map.Entry::getKey).toList();
    }
  }

  private static Record byId(List<Record> records, String id) {
    return records.stream().filter(r -> id.equals(r.id())).findFirst().orElseThrow();
  }

  /**
   * Reads every record of the topics under the prefix, once at least {@code count} arrived. A topic
   * that appears meanwhile makes the group rebalance, and partitions without committed offsets are
   * read again from the start: each offset is kept once.
   */
  private static List<Record> read(String bootstrap, String prefix, int count) {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "read-" + UUID.randomUUID());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
    Map<String, Record> records = new LinkedHashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(Pattern.compile(Pattern.quote(prefix) + ".*"));
      Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                poll(consumer, records);
                return records.size() >= count;
              });
      long quietUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (System.nanoTime() < quietUntil) {
        int before = records.size();
        poll(consumer, records);
        if (records.size() > before) {
          quietUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        }
      }
    }
    return List.copyOf(records.values());
  }

  private static void poll(KafkaConsumer<byte[], byte[]> consumer, Map<String, Record> into) {
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
      List<Map.Entry<String, byte[]>> headers =
          StreamSupport.stream(r.headers().spliterator(), false)
              .map(h -> Map.entry(h.key(), h.value()))
              .toList();
      into.putIfAbsent(
          r.topic() + "/" + r.partition() + "/" + r.offset(),
          new Record(r.topic(), r.partition(), r.offset(), r.key(), headers, r.value()));
    }
  }

  /**
   * Each record as one line, all bytes in hex: topic without the pipeline's prefix, partition, key,
   * headers in order, value; sorted by topic, partition and offset.
   */
  private static List<String> canonical(List<Record> records, String prefix) {
    return records.stream()
        .sorted(
            Comparator.comparing(Record::topic)
                .thenComparingInt(Record::partition)
                .thenComparingLong(Record::offset))
        .map(r -> r.topic().substring(prefix.length()) + " p" + r.partition() + " " + content(r))
        .toList();
  }

  /**
   * The records of each aggregate (topic without prefix, partition, key), in the order of its
   * partition: what any number of polling workers keep equal, whatever else shares the partition.
   */
  private static Map<String, List<String>> byAggregate(List<Record> records, String prefix) {
    return records.stream()
        .sorted(Comparator.comparingLong(Record::offset))
        .collect(
            Collectors.groupingBy(
                r ->
                    r.topic().substring(prefix.length())
                        + " p"
                        + r.partition()
                        + " key="
                        + HexFormat.of().formatHex(r.key()),
                java.util.TreeMap::new,
                Collectors.mapping(DebeziumOutboxCompatibilityIT::content, Collectors.toList())));
  }

  private static String content(Record r) {
    HexFormat hex = HexFormat.of();
    return "key="
        + hex.formatHex(r.key())
        + " headers="
        + r.headers().stream()
            .map(
                h ->
                    h.getKey()
                        + ":"
                        + (h.getValue() == null ? "null" : hex.formatHex(h.getValue())))
            .collect(Collectors.joining(","))
        + " value="
        + hex.formatHex(r.value());
  }

  /** The directory that holds Debezium's MariaDB connector plugin (maven-dependency-plugin). */
  private static Path debeziumPluginPath() {
    return Path.of(requiredProperty("outbox.connect.debezium.plugin")).getParent();
  }

  /**
   * Connect and its libraries with the OpenTelemetry API, and this module's test classes for the
   * worker's main class; neither the relay's classes nor Debezium.
   */
  private static String workerClasspath() throws IOException {
    String classpath =
        Files.readString(Path.of(requiredProperty("outbox.connect.worker.classpath"))).strip();
    assertThat(classpath.split(":"))
        .extracting(e -> Path.of(e).getFileName().toString())
        .noneMatch(f -> f.startsWith("outbox-") || f.startsWith("debezium-"))
        .anyMatch(f -> f.startsWith("opentelemetry-api-"));
    String testClasses =
        Path.of(
                PropagatingWorker.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .getPath())
            .toString();
    return classpath + ":" + testClasses;
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
