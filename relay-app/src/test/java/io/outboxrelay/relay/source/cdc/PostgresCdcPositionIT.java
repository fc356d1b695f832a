package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code position show | reset | import} of a CDC relay on PostgreSQL, with the relay run from the
 * distribution: the reset skips exactly what was committed while the relay was down and moves the
 * slot with the stored position; the import takes over a stopped Debezium PostgreSQL connector's
 * offset and slot, and the relay publishes exactly what was committed after that offset.
 */
class PostgresCdcPositionIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONNECTOR = "outbox-connector";

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private String config;
  private final InProcessRuns processes = new InProcessRuns();

  @BeforeEach
  void setUp() {
    db = PostgresCdcDatabases.selfServing(PostgresCdcDatabases.server());
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgpos");
    config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .without("cdc.server.id")
            .with("cdc.heartbeat.interval", "500ms")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
  }

  @AfterEach
  void tearDown() {
    processes.close(); // before the database: a live relay blocks its drop
    db.close();
  }

  private void write(List<TestEvent> events) throws Exception {
    try (Connection c = db.app()) {
      for (TestEvent e : events) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }
  }

  private static List<TestEvent> events(String aggregate, int from, int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      events.add(TestEvent.of("order", aggregate, i));
    }
    return events;
  }

  private String slot() {
    return PostgresReplication.slotName(topics.name());
  }

  private String query(String sql) {
    return String.valueOf(db.adminQuery(sql));
  }

  private String storedOffset() {
    return query("SELECT string_agg(offset_val, ',') FROM outbox_relay_offsets");
  }

  private void assertExactly(Ledger ledger) {
    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(result.unexpected())
        .as("nothing skipped is published: " + result.summary())
        .isZero();
  }

  @Test
  void showsThePositionAndResetSkipsExactlyWhatWasCommittedWhileTheRelayWasDown() throws Exception {
    Ledger ledger = topics.newLedger().semanticPayloads();
    List<TestEvent> before = events("a", 1, 3);
    RelayRun relay = processes.run("relay-1", dir, config);
    relay.awaitReady();
    write(before);
    ledger.expect(before);
    topics.readAll(ledger, Duration.ofSeconds(60));

    Cli.Result show = Cli.expect(0, "position", "show", "--config", config);
    assertThat(show.out())
        .containsPattern("position: +[0-9A-F]+/[0-9A-F]+ \\(outbox_relay_offsets\\)")
        .contains(slot() + ", confirmed_flush_lsn ")
        .contains("read by a relay");
    Cli.Result json = Cli.expect(0, "position", "show", "--config", config, "--json");
    assertThat(JSON.readTree(json.out()).path("slot").path("name").asText()).isEqualTo(slot());

    // Refused while the relay reads the slot: nothing changes.
    String storedWhileRunning = storedOffset();
    Cli.Result running =
        Cli.expect(2, "position", "reset", "--to-current", "--config", config, "--yes");
    assertThat(running.err()).contains("is read by process").contains("nothing was changed");
    assertThat(running.err().strip().lines().count()).as(running.toString()).isOne();

    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    List<TestEvent> skipped = events("b", 1, 3);
    write(skipped); // committed while the relay is down: the reset skips them
    String stored = storedOffset();
    assertThat(stored).isNotEqualTo("null");

    Cli.Result dry = Cli.expect(0, "position", "reset", "--to-current", "--config", config);
    assertThat(dry.out())
        .contains("a reset would move relay " + topics.name())
        .contains("skipped: every change from ")
        .contains("created_at >= to_timestamp(")
        .contains("dry run: nothing changed");
    assertThat(storedOffset()).isEqualTo(stored);

    String serverBefore = query("SELECT pg_current_wal_lsn()::text");
    Cli.Result reset =
        Cli.expect(0, "position", "reset", "--to-current", "--config", config, "--yes");
    assertThat(reset.out()).contains("reset: relay " + topics.name() + " now starts at ");
    assertThat(storedOffset()).isNotEqualTo(stored);
    assertThat(
            query(
                "SELECT confirmed_flush_lsn >= '"
                    + serverBefore
                    + "'::pg_lsn FROM pg_replication_slots WHERE slot_name = '"
                    + slot()
                    + "'"))
        .as("the slot moved with the position")
        .isEqualTo("true");

    List<TestEvent> after = events("a", 4, 3);
    write(after);
    ledger.expect(after);
    RelayRun again = processes.run("relay-2", dir, config);
    again.awaitReady();
    // before (once, by the first relay) and after; none of the skipped ones.
    assertExactly(ledger);
    again.terminate();
    assertThat(again.waitFor(Duration.ofSeconds(60))).as(again.log()).isZero();
    assertThat(storedWhileRunning).isNotEqualTo("null");
  }

  /** Writes a Connect standalone worker's offsets file holding one offset of the connector. */
  private Path offsetsFile(Map<String, Object> offset) throws Exception {
    Map<byte[], byte[]> pairs = new HashMap<>();
    pairs.put(
        JSON.writeValueAsBytes(List.of(CONNECTOR, Map.of("server", "dbserver1"))),
        JSON.writeValueAsBytes(offset));
    Path file = Files.createTempFile(dir, "offsets-", ".dat");
    try (OutputStream out = Files.newOutputStream(file);
        ObjectOutputStream objects = new ObjectOutputStream(out)) {
      objects.writeObject(pairs);
    }
    return file;
  }

  private Cli.Result importing(int exit, Path file, String connectorSlot, boolean yes) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "position",
                "import",
                "--config",
                config,
                "--connector",
                CONNECTOR,
                "--from-offsets-file",
                file.toString(),
                "--slot",
                connectorSlot));
    if (yes) {
      args.add("--yes");
    }
    return Cli.expect(exit, args.toArray(String[]::new));
  }

  /**
   * A Debezium PostgreSQL connector streamed the outbox from its slot and committed an offset
   * between two groups of rows, then stopped; the relay's publication existed before (the import
   * says to create it first). The import copies the connector's slot and stores its offset; the
   * relay publishes the second group only. Offsets and slots it cannot take are refused with
   * nothing changed.
   */
  @Test
  void importsADebeziumConnectorsOffsetAndSlotAndPublishesExactlyWhatCameAfterIt()
      throws Exception {
    String connectorSlot = "dbz_" + Long.toHexString(System.nanoTime() & 0xffffffL);
    String publication = PostgresReplication.publicationName(topics.name());
    db.admin("SELECT pg_create_logical_replication_slot('" + connectorSlot + "', 'pgoutput')");
    try {
      List<TestEvent> published = events("a", 1, 3); // by the connector
      write(published);
      Path missingPublication = offsetsFile(offsetHere());
      Cli.Result noPublication = importing(2, missingPublication, connectorSlot, true);
      assertThat(noPublication.err())
          .contains("publication " + publication + " does not exist")
          .contains("nothing was changed");

      db.admin(PostgresReplication.createPublicationSql(topics.name(), "public.outbox_events"));
      write(events("a", 4, 2)); // the connector streamed past the publication's creation
      Map<String, Object> offset = offsetHere();
      // The connector confirms a committed offset to its slot.
      db.admin(
          "SELECT pg_replication_slot_advance('"
              + connectorSlot
              + "', '0/0'::pg_lsn + "
              + offset.get("lsn")
              + ")");
      List<TestEvent> after = events("a", 6, 3);
      write(after);

      // A snapshot's offset, and one the slot confirmed past, are refused.
      Map<String, Object> snapshot = new LinkedHashMap<>(offset);
      snapshot.put("snapshot", true);
      snapshot.put("last_snapshot_record", false);
      assertThat(importing(2, offsetsFile(snapshot), connectorSlot, true).err())
          .contains("during its snapshot")
          .contains("nothing was changed");
      Map<String, Object> early = new LinkedHashMap<>(offset);
      long beforeSlot = 16L;
      early.put("lsn", beforeSlot);
      early.put("lsn_proc", beforeSlot);
      early.put("lsn_commit", beforeSlot);
      assertThat(importing(2, offsetsFile(early), connectorSlot, true).err())
          .contains("confirmed")
          .contains("would skip what lies between")
          .contains("nothing was changed");
      assertThat(query("SELECT to_regclass('outbox_relay_offsets') IS NULL"))
          .as("nothing stored: the relay never ran, and its offsets table was not created")
          .isEqualTo("true");

      Path file = offsetsFile(offset);
      assertThat(importing(0, file, connectorSlot, false).out()).contains("dry run");
      assertThat(
              query("SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = '" + slot() + "'"))
          .isEqualTo("0");
      assertThat(importing(0, file, connectorSlot, true).out())
          .contains("imported: relay " + topics.name());
      assertThat(importing(2, file, connectorSlot, true).err()).contains("already has");

      RelayRun relay = processes.run("relay-1", dir, config);
      relay.awaitReady();
      List<TestEvent> later = events("a", 9, 2);
      write(later);
      Ledger ledger = topics.newLedger().semanticPayloads();
      ledger.expect(after);
      ledger.expect(later);
      assertExactly(ledger);
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    } finally {
      db.admin(
          "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name"
              + " = '"
              + connectorSlot
              + "' AND NOT active");
    }
  }

  /**
   * With {@code delivery.guarantee=exactly-once} the import commits the connector's offset to the
   * progress topic before it stores it, so that the relay resumes at it: while Kafka does not
   * answer the import fails (exit 1) with nothing stored and the copied slot dropped again; then it
   * succeeds, {@code status} shows the same position in Kafka and in the database, and the relay
   * publishes exactly the rows committed after the offset.
   */
  @Test
  void withExactlyOnceImportsTheOffsetIntoKafkaFirst() throws Exception {
    RelaySettings eos =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .without("cdc.server.id")
            .with("cdc.heartbeat.interval", "500ms")
            .with("delivery.guarantee", "exactly-once")
            .with("delivery.progress.topic", topics.name() + "-progress");
    config = eos.writeTo(dir.resolve("eos.properties")).toString();
    String noKafka =
        eos.with("kafka.bootstrap.servers", "127.0.0.1:1")
            .writeTo(dir.resolve("no-kafka.properties"))
            .toString();
    String connectorSlot = "dbz_" + Long.toHexString(System.nanoTime() & 0xffffffL);
    db.admin(PostgresReplication.createPublicationSql(topics.name(), "public.outbox_events"));
    db.admin("SELECT pg_create_logical_replication_slot('" + connectorSlot + "', 'pgoutput')");
    try {
      write(events("a", 1, 3)); // published by the connector
      Map<String, Object> offset = offsetHere();
      db.admin(
          "SELECT pg_replication_slot_advance('"
              + connectorSlot
              + "', '0/0'::pg_lsn + "
              + offset.get("lsn")
              + ")");
      List<TestEvent> after = events("a", 4, 3);
      write(after);
      Path file = offsetsFile(offset);

      Cli.Result refused =
          Cli.expect(
              1,
              "position",
              "import",
              "--config",
              noKafka,
              "--connector",
              CONNECTOR,
              "--from-offsets-file",
              file.toString(),
              "--slot",
              connectorSlot,
              "--yes");
      assertThat(refused.err()).contains("progress topic").contains("nothing was changed");
      assertThat(
              query("SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = '" + slot() + "'"))
          .as("the copied slot is dropped again")
          .isEqualTo("0");
      assertThat(storedOffset()).isEqualTo("null");

      assertThat(importing(0, file, connectorSlot, true).out())
          .contains("committed to progress topic")
          .contains("imported: relay " + topics.name());
      JsonNode status = JSON.readTree(Cli.expect(0, "status", "--config", config, "--json").out());
      assertThat(status.path("kafka_position").path("lsn").asText())
          .as(status.toString())
          .isEqualTo(status.path("position").asText());
      assertThat(status.path("resumes_at").asText()).as(status.toString()).isEqualTo("database");

      RelayRun relay = processes.run("relay-1", dir, config);
      relay.awaitReady();
      List<TestEvent> later = events("a", 7, 2);
      write(later);
      Ledger ledger = topics.newLedger().semanticPayloads();
      ledger.expect(after);
      ledger.expect(later);
      assertExactly(ledger);
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    } finally {
      db.admin(
          "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name"
              + " = '"
              + connectorSlot
              + "' AND NOT active");
    }
  }

  /**
   * The offset Debezium's PostgreSQL connector stores between transactions at the server's current
   * position.
   */
  private Map<String, Object> offsetHere() {
    long lsn =
        ((Number) db.adminQuery("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"))
            .longValue();
    long micros =
        ((Number) db.adminQuery("SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::bigint"))
            .longValue();
    Map<String, Object> offset = new LinkedHashMap<>();
    offset.put("transaction_id", null);
    offset.put("lsn_proc", lsn);
    offset.put("messageType", "COMMIT");
    offset.put("lsn_commit", lsn);
    offset.put("lsn", lsn);
    offset.put("txId", 0);
    offset.put("ts_usec", micros);
    return offset;
  }
}
