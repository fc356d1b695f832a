package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code position import} of a Debezium connector's offset into a CDC relay that never ran, on a
 * private MariaDB with the relay run from the distribution: the first start resumes from it, also
 * inside a transaction; offsets the server cannot serve are refused with nothing changed.
 */
class PositionImportIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONNECTOR = "outbox-connector";

  private static MariaDbServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private final InProcessRuns processes = new InProcessRuns();

  @BeforeAll
  static void startServer() {
    server = MariaDbServer.builder().bufferPoolSize("64M").start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void tearDown() {
    processes.close(); // before the database: a live relay blocks its drop
    if (db != null) {
      db.close();
    }
  }

  /**
   * The offset a connector stores at the server's current position, between transactions: file,
   * pos, gtids, ts_sec, server_id.
   */
  static Map<String, Object> serverNow(MariaDbServer server) throws Exception {
    Map<String, Object> offset = new LinkedHashMap<>();
    try (Connection c = server.adminConnection();
        Statement st = c.createStatement()) {
      // Read as the import reads it: file, pos and GTIDs of one point, while others write.
      BinlogServer.Position at =
          BinlogServer.current(c, io.outboxrelay.relay.source.SqlDialect.MARIADB);
      offset.put("file", at.file());
      offset.put("pos", at.pos());
      offset.put("gtids", at.gtids());
      try (ResultSet rs = st.executeQuery("SELECT UNIX_TIMESTAMP(), @@server_id")) {
        rs.next();
        offset.put("ts_sec", rs.getLong(1));
        offset.put("server_id", rs.getLong(2));
      }
    }
    return offset;
  }

  /** Writes a Connect standalone worker's offsets file holding one offset of the connector. */
  static Path offsetsFile(Path dir, String connector, Map<String, Object> offset) throws Exception {
    Map<byte[], byte[]> pairs = new HashMap<>();
    pairs.put(
        JSON.writeValueAsBytes(List.of(connector, Map.of("server", "dbserver1"))),
        JSON.writeValueAsBytes(offset));
    Path file = Files.createTempFile(dir, "offsets-", ".dat");
    try (OutputStream out = Files.newOutputStream(file);
        ObjectOutputStream objects = new ObjectOutputStream(out)) {
      objects.writeObject(pairs);
    }
    return file;
  }

  private static Cli.Result importing(int exit, String config, Path file) {
    return Cli.expect(
        exit,
        "position",
        "import",
        "--config",
        config,
        "--connector",
        CONNECTOR,
        "--from-offsets-file",
        file.toString(),
        "--yes");
  }

  private long offsetRows() {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_relay_offsets")).longValue();
  }

  /**
   * The relay never ran and its storage tables do not exist (nobody ran relay-storage.sql): the
   * import creates the offsets table, Debezium the history table at the first start.
   */
  @Test
  void aFirstStartAfterAnImportInsideATransactionPublishesExactlyTheRestOfIt() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "import");
    db = OutboxDatabase.on(server);
    db.admin(
        "DROP TABLE outbox_relay_offsets, outbox_relay_schema_history",
        "GRANT CREATE ON " + db.name() + ".* TO '" + db.relayUser() + "'@'127.0.0.1'");
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .with("cdc.startup.timeout", "30s")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    List<TestEvent> published = events("a", 1, 3);
    try (Connection c = db.app()) {
      for (TestEvent e : published) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }
    // The connector stopped after the first two of five rows (one INSERT each) of a
    // transaction: it skips the GTID event, then the table map and row events of the first row
    // and the table map of the second (4 events), then the second's one row.
    Map<String, Object> offset = serverNow(server);
    List<TestEvent> transaction = events("b", 1, 5);
    try (Connection c = db.app();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type,"
                    + " payload) VALUES (?, ?, ?, ?, ?)")) {
      for (TestEvent e : transaction) {
        ps.setString(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, e.payload());
        ps.executeUpdate();
      }
      c.commit();
    }
    offset.put("event", 4);
    offset.put("row", 1);
    List<TestEvent> after = events("a", 4, 3);
    try (Connection c = db.app()) {
      for (TestEvent e : after) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }

    assertThat(importing(0, config, offsetsFile(dir, CONNECTOR, offset)).out())
        .contains("inside a transaction");
    RelayRun relay = processes.run("relay-1", dir, config);
    relay.awaitReady();
    Ledger ledger = topics.newLedger();
    ledger.expect(transaction.subList(2, 5));
    ledger.expect(after);
    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected())
        .as("the rows before the offset, and the transaction's first two: " + result.summary())
        .isZero();
    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  @Test
  void refusesOffsetsTheServerCannotResumeFromInOneLineWithNothingChanged() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "refuse");
    db = OutboxDatabase.on(server);
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, events("a", 1, 2));
    }
    Map<String, Object> good = serverNow(server);
    long start = ((Number) good.get("pos")).longValue();
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, events("a", 3, 2));
    }
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("\"abc\"", "has pos 'abc', not a whole number of bytes");
    expected.put("-4", "has pos '-4', not a whole number of bytes");
    expected.put(String.valueOf(start + 1), "which is not where an event of");
    expected.put(String.valueOf(start + 1_000_000), "outside binlog file");
    for (Map.Entry<String, String> e : expected.entrySet()) {
      Map<String, Object> bad = new LinkedHashMap<>(good);
      bad.put("pos", JSON.readValue(e.getKey(), Object.class));
      assertRefused(config, bad, e.getValue());
    }
    Map<String, Object> noGtids = new LinkedHashMap<>(good);
    noGtids.remove("gtids");
    assertRefused(config, noGtids, "has no gtids, and the server writes GTIDs");
    Map<String, Object> incremental = new LinkedHashMap<>(good);
    incremental.put(
        "incremental_snapshot_collections",
        "[{\"incremental_snapshot_collections_id\":\"db.outbox_events\"}]");
    incremental.put("incremental_snapshot_primary_key", "aced0005");
    assertRefused(config, incremental, "was stored during an incremental snapshot");

    // The same offset, usable, is taken.
    importing(0, config, offsetsFile(dir, CONNECTOR, good));
    assertThat(offsetRows()).isOne();
  }

  private void assertRefused(String config, Map<String, Object> offset, String why)
      throws Exception {
    Cli.Result r = importing(2, config, offsetsFile(dir, CONNECTOR, offset));
    assertThat(r.err()).as(r.toString()).contains(why).contains("nothing was changed");
    assertThat(r.err().strip().lines().count()).as(r.toString()).isOne();
    assertThat(offsetRows()).as("nothing stored after: " + why).isZero();
  }

  private static List<TestEvent> events(String aggregate, int from, int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      events.add(TestEvent.of("order", aggregate, i));
    }
    return events;
  }
}
