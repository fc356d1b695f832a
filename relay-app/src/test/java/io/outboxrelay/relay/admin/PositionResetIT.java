package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.shyiko.mysql.binlog.BinaryLogClient;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code position reset --to-current} after the binlog was purged while the CDC relay was down, on
 * a private MariaDB (its binlog is purged) with the relay run from the distribution.
 */
class PositionResetIT {

  private static final Logger LOG = LoggerFactory.getLogger(PositionResetIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private MariaDbServer server;
  private OutboxDatabase db;
  private final InProcessRuns processes = new InProcessRuns();

  @AfterEach
  void tearDown() {
    processes.close(); // before the database: a live relay blocks its drop
    if (db != null) {
      db.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private RelayRun run(String label, String config) {
    return processes.run(label, dir, config);
  }

  private static List<TestEvent> events(String aggregate, int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      events.add(TestEvent.of("order", aggregate, i));
    }
    return events;
  }

  private static void write(OutboxDatabase db, List<TestEvent> events) throws Exception {
    try (Connection c = db.app()) {
      for (TestEvent e : events) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }
  }

  private static Cli.Result admin(int expectedExit, String... args) {
    return Cli.expect(expectedExit, args);
  }

  private static String offset(OutboxDatabase db) {
    return String.valueOf(db.adminQuery("SELECT offset_val FROM outbox_relay_offsets"));
  }

  private static long binlogReaders(OutboxDatabase db) {
    return ((Number)
            db.adminQuery(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '"
                    + db.relayUser()
                    + "' AND COMMAND LIKE 'Binlog Dump%'"))
        .longValue();
  }

  private static Set<String> eventIdsOf(OutboxDatabase db, String sql) throws Exception {
    Set<String> ids = new HashSet<>();
    try (Connection c = db.app();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(rs.getString("event_id"));
      }
    }
    return ids;
  }

  private static Set<String> ids(List<TestEvent> events) {
    Set<String> ids = new HashSet<>();
    events.forEach(e -> ids.add(e.eventId()));
    return ids;
  }

  @Test
  void resetAfterAPurgedBinlogSkipsTheGapSaysWhichRowsAndTheRelayPublishesWhatFollows()
      throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "reset");
    String bootstrap = topics.bootstrap();
    String name = topics.name();
    TopicReader reader = topics.reader();
    server = MariaDbServer.builder().bufferPoolSize("64M").start();
    db = OutboxDatabase.on(server);
    String config =
        RelaySettings.cdc(db, bootstrap, name)
            .with("cdc.startup.timeout", "30s")
            .writeTo(dir.resolve("relay.properties"))
            .toString();

    // Published by a relay that then stops cleanly.
    List<TestEvent> before = events("a", 5);
    Ledger published = topics.newLedger();
    published.expect(before);
    RelayRun relay = run("relay-1", config);
    relay.awaitReady();
    write(db, before);
    reader.readUntil(published::allArrived, Duration.ofSeconds(60));

    assertThat(admin(2, "position", "reset", "--config", config, "--to-current", "--yes").err())
        .contains("a binlog reader of user '" + db.relayUser() + "' is connected")
        .contains("stop the CDC relay " + name);
    // (The live relay itself commits new positions as it reads the command's probes.)
    assertThat(db.adminQuery("SELECT COUNT(*) FROM outbox_relay_offsets")).isEqualTo(1L);
    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).isZero();
    String stored = offset(db);
    LOG.info("offset stored by Debezium: {}", stored);
    JsonNode debezium = JSON.readTree(stored);

    // Written while the relay is down, then purged from the binlog.
    List<TestEvent> missed = events("b", 5);
    write(db, missed);
    db.admin("FLUSH BINARY LOGS");
    // The rotation reaches the stopped relay's dump thread, which ends; then nothing holds the
    // old files.
    await().atMost(Duration.ofSeconds(30)).until(() -> binlogReaders(db) == 0);
    String current = BinlogPurge.allButCurrent(db);

    RelayRun refused = run("relay-2", config);
    assertThat(refused.waitFor(Duration.ofSeconds(90))).as(refused.log()).isEqualTo(1);
    LOG.info(
        "the relay refused to start: {}",
        refused.log().lines().filter(l -> l.contains(" ERROR ")).toList());

    JsonNode show = JSON.readTree(admin(0, "position", "show", "--config", config, "--json").out());
    assertThat(show.get("purged").asBoolean()).isTrue();
    assertThat(show.get("position").get("file").asText()).isEqualTo(debezium.get("file").asText());
    assertThat(admin(0, "position", "show", "--config", config).out())
        .contains("is no longer on the server (purged; the oldest is " + current + ")");

    // The dry run says what would be skipped and how to find it, and changes nothing.
    String plan = admin(0, "position", "reset", "--config", config, "--to-current").out();
    assertThat(plan)
        .contains(
            "skipped: every binlog event from "
                + debezium.get("file").asText()
                + ":"
                + debezium.get("pos").asLong())
        .contains("the files before " + current + " were purged")
        .contains("dry run: nothing changed");
    assertThat(offset(db)).isEqualTo(stored);
    Matcher query = Pattern.compile("(?m)^  (SELECT .*);$").matcher(plan);
    assertThat(query.find()).as(plan).isTrue();
    Set<String> found = eventIdsOf(db, query.group(1));
    assertThat(found).containsAll(ids(missed));
    Set<String> writtenBefore = ids(before);
    writtenBefore.addAll(ids(missed));
    assertThat(writtenBefore).containsAll(found);

    // The reset.
    String gtids = String.valueOf(db.adminQuery("SELECT @@gtid_binlog_pos"));
    admin(0, "position", "reset", "--config", config, "--to-current", "--yes");
    JsonNode reset = JSON.readTree(offset(db));
    LOG.info("offset after the reset: {}", reset);
    assertThat(reset.get("file").asText()).isEqualTo(current);
    // The reset's own transaction on the offsets table comes after the position it wrote.
    assertThat(reset.get("gtids").asText()).isEqualTo(gtids);
    Set<String> fields = new HashSet<>();
    reset.fieldNames().forEachRemaining(fields::add);
    Set<String> debeziumFields = new HashSet<>();
    debezium.fieldNames().forEachRemaining(debeziumFields::add);
    assertThat(debeziumFields).as("the fields Debezium stores").containsAll(fields);
    assertThat(fields).contains("file", "pos", "gtids", "ts_sec", "server_id");

    // Everything committed after the reset is published, also what comes before the start.
    List<TestEvent> after = events("c", 6);
    write(db, after.subList(0, 3));
    RelayRun restarted = run("relay-3", config);
    restarted.awaitReady();
    write(db, after.subList(3, 6));
    Ledger afterReset = topics.newLedger();
    afterReset.expect(after);
    afterReset.expect(before);
    List<ConsumedRecord> records =
        reader.readUntilQuiet(
            afterReset::allArrived,
            Duration.ofSeconds(60),
            Duration.ofSeconds(2),
            Duration.ofSeconds(60));
    Ledger.Result result = afterReset.check(records);
    LOG.info("{}: {}", name, result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as("the purged events were skipped").isZero();
    restarted.terminate();
    assertThat(restarted.waitFor(Duration.ofSeconds(60))).isZero();

    // A reader that is gone stays listed until the server next sends it something; the reset
    // makes it notice instead of refusing. A stopped relay's reader is listed only until the
    // next heartbeat its client asked for (every 2.4 s), so the test leaves one of its own,
    // without heartbeats, once the relay's has gone.
    await().atMost(Duration.ofSeconds(30)).until(() -> binlogReaders(db) == 0);
    leaveAGoneReader(db);
    assertThat(binlogReaders(db)).isOne();
    admin(0, "position", "reset", "--config", config, "--to-current", "--yes");
    assertThat(binlogReaders(db)).isZero();
  }

  /**
   * Connects a binlog reader as the relay's user, without heartbeats, and closes its connection:
   * the server lists it until it next writes to it.
   */
  private static void leaveAGoneReader(OutboxDatabase db) throws Exception {
    BinaryLogClient client =
        new BinaryLogClient(db.host(), db.port(), db.relayUser(), db.password());
    client.setServerId(4_242_424L);
    client.setKeepAlive(false);
    client.connect(10_000);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> binlogReaders(db) == 1);
    } finally {
      client.disconnect();
    }
  }
}
