package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelayProcesses;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator commands of a relay with {@code delivery.guarantee=exactly-once}, on a private
 * MariaDB and the shared broker, the relay run from the distribution: {@code status} shows the
 * position committed in Kafka next to the database's and which one the next start takes, also when
 * Kafka does not answer; {@code handoff} both ways after the relay was killed with its database
 * position behind Kafka's publishes every event once; {@code position import} of an earlier
 * position wins over Kafka's later one, and changes nothing while Kafka does not answer. Every
 * event is checked by id and per-aggregate order in a {@code read_committed} ledger.
 */
class ExactlyOnceAdminIT {

  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceAdminIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A port nothing listens on: a Kafka that does not answer. */
  private static final String NO_KAFKA = "127.0.0.1:1";

  private static MariaDbServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private SteadyWriter writer;
  private final RelayProcesses processes = new RelayProcesses();
  private final InProcessRuns runs = new InProcessRuns();

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
    if (writer != null) {
      writer.close();
    }
    runs.close(); // before the database: a live relay blocks its drop
    processes.close();
    if (db != null) {
      db.close();
    }
  }

  private static RelaySettings exactlyOnce(OutboxDatabase db, TestTopics topics) {
    return RelaySettings.cdc(db, topics.bootstrap(), topics.name())
        .with("delivery.guarantee", "exactly-once")
        .with("delivery.progress.topic", topics.name() + "-progress")
        .with("cdc.startup.timeout", "30s");
  }

  private static void stop(RelayRun relay) {
    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  private static JsonNode statusJson(String config) throws Exception {
    Cli.Result r = Cli.expect(0, "status", "--config", config, "--json");
    return JSON.readTree(r.out());
  }

  /**
   * The relay commits its database position rarely (every 8192 events or hour) and is killed under
   * load: the database's position is well behind Kafka's. {@code status} says the next start takes
   * Kafka's. The hand-off to polling counts from Kafka's position (counting from the database's
   * would leave the rows published since PENDING, and polling would publish them again); the
   * hand-off back to CDC publishes what polling left in transactions and commits the snapshot's
   * position to Kafka. Every event once, in order, for a read_committed consumer.
   */
  @Test
  void handsOffToPollingAndBackAfterAKillWithEveryEventOnce() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "eosho");
    db = OutboxDatabase.on(server).grantPolling();
    String user = "'" + db.relayUser() + "'@'127.0.0.1'";
    db.admin(
        "GRANT INSERT, UPDATE ON " + db.name() + ".outbox_relay_handoffs TO " + user,
        "GRANT SELECT ON " + db.name() + ".outbox_relay_leases TO " + user);
    String config =
        exactlyOnce(db, topics)
            .with("cdc.batch.size", "8192")
            .with("cdc.commit.interval", "1h")
            .with("cdc.leader.lease", "2s")
            .with("cdc.leader.renew.interval", "300ms")
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    // Polling publishes at least once, and refuses exactly-once: its relays get their own file.
    String pollingConfig =
        exactlyOnce(db, topics)
            .with("delivery.guarantee", "at-least-once")
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("polling.properties"))
            .toString();
    Ledger ledger = topics.newLedger();

    RelayProcess cdc = processes.run("cdc-1", dir, config);
    cdc.awaitReady();
    writer = SteadyWriter.start(db, ledger, "order", 300, 24, 3);
    topics.readAtLeast(1500, Duration.ofSeconds(60));
    cdc.process().kill();
    assertThat(cdc.waitFor(Duration.ofSeconds(30))).isEqualTo(137);

    // Kafka's position is unknown while the killed relay's transaction stays open (until the next
    // holder of its transactional id, or transaction.timeout.ms); status says so in one line.
    Cli.Result killed = Cli.expect(0, "status", "--config", config);
    assertThat(killed.out().lines().filter(l -> l.contains("Kafka's position:")))
        .as(killed.toString())
        .singleElement()
        .asString()
        .satisfiesAnyOf(
            l -> assertThat(l).contains("unknown (a transaction on " + topics.name()),
            l -> assertThat(l).contains("(progress topic " + topics.name()));
    assertThat(killed.out()).contains("stored position:").contains("next start at:");

    // To polling, once the killed relay's leadership ran out: it fences the transactional id
    // (aborting the killed relay's transaction) and counts from Kafka's position.
    Cli.Result[] toPolling = new Cli.Result[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              toPolling[0] = Cli.run("handoff", "--config", config, "--to", "polling");
              return toPolling[0].exitCode() == 0;
            });
    LOG.info("handoff --to polling: {}", toPolling[0]);
    assertThat(toPolling[0].out()).contains("the hand-off counts from Kafka's");
    // The database's position was well behind Kafka's: counting from it would have left the rows
    // in between PENDING for polling.
    JsonNode status = statusJson(config);
    LOG.info("status after the hand-off: {}", status);
    assertThat(status.path("delivery_guarantee").asText()).isEqualTo("exactly-once");
    assertThat(status.path("resumes_at").asText()).as(status.toString()).isEqualTo("kafka");
    assertThat(status.path("kafka_position").path("pos").asLong())
        .as(status.toString())
        .isNotEqualTo(status.path("position").path("pos").asLong());
    assertThat(Cli.expect(0, "status", "--config", config).out())
        .contains("next start at:")
        .contains("Kafka's position (the database's is behind it");
    assertThat(toPolling[0].out()).contains("with delivery.guarantee=at-least-once");
    RelayRun polling = runs.run("polling-1", dir, pollingConfig, "--mode", "polling");
    polling.awaitReady();
    int beforePolling = ledger.size();
    await().atMost(Duration.ofSeconds(60)).until(() -> ledger.size() > beforePolling + 900);
    stop(polling);

    // Back to CDC: the first start publishes what polling left, then streams.
    Cli.Result toCdc = Cli.expect(0, "handoff", "--config", config, "--to", "cdc");
    assertThat(statusJson(config).path("resumes_at").asText()).isEqualTo("handoff");
    RelayRun back = runs.run("cdc-2", dir, config);
    back.awaitReady();
    LOG.info("handoff --to cdc: {}", toCdc);
    assertThat(back.log()).contains("that polling left unpublished");
    int beforeBack = ledger.size();
    await().atMost(Duration.ofSeconds(60)).until(() -> ledger.size() > beforeBack + 900);
    writer.stop(Duration.ofSeconds(30));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(120));
    LOG.info("{}: {}", topics.name(), result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    // The first start committed its position to Kafka: both agree after a graceful stop.
    stop(back);
    JsonNode after = statusJson(config);
    assertThat(after.path("resumes_at").asText()).as(after.toString()).isEqualTo("database");
    assertThat(after.path("kafka_position").path("pos").asLong())
        .isEqualTo(after.path("position").path("pos").asLong());
  }

  /**
   * The relay published ten events and committed its position after them in Kafka. An operator
   * rewinds it: deletes its database row and imports a position before the ten. With Kafka not
   * answering the import fails in one line and stores nothing; with Kafka it commits the imported
   * position to the progress topic, then stores it, and the next start publishes the ten again from
   * there (with Kafka's later position winning, it would publish nothing).
   */
  @Test
  void anImportedEarlierPositionWinsOverKafkasAndNothingChangesWhileKafkaIsAway() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "eosimp");
    db = OutboxDatabase.on(server);
    RelaySettings settings = exactlyOnce(db, topics);
    String config = settings.writeTo(dir.resolve("relay.properties")).toString();
    String away =
        exactlyOnce(db, topics)
            .with("kafka.bootstrap.servers", NO_KAFKA)
            .writeTo(dir.resolve("away.properties"))
            .toString();

    Map<String, Object> before = PositionImportIT.serverNow(server);
    List<TestEvent> first = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      first.add(TestEvent.of("order", "o-" + i % 2, i));
    }
    try (Connection c = db.app()) {
      for (TestEvent e : first) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }
    RelayRun relay = runs.run("relay-1", dir, config);
    relay.awaitReady();
    List<TestEvent> second = new ArrayList<>();
    for (int i = 6; i <= 10; i++) {
      second.add(TestEvent.of("order", "o-" + i % 2, i));
    }
    try (Connection c = db.app()) {
      for (TestEvent e : second) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
      }
    }
    Ledger ledger = topics.newLedger();
    ledger.expect(first);
    ledger.expect(second);
    assertThat(topics.check(ledger, Duration.ofSeconds(60)).duplicates()).isZero();
    stop(relay);

    // Kafka away: status prints the database's part and one line for Kafka.
    Cli.Result awayStatus = Cli.expect(0, "status", "--config", away);
    assertThat(awayStatus.out()).contains("stored position:").contains("server position:");
    assertThat(awayStatus.out().lines().filter(l -> l.contains("Kafka's position:")))
        .as(awayStatus.toString())
        .singleElement()
        .asString()
        .contains("unknown (Kafka at " + NO_KAFKA + " did not answer within 5 s)");
    JsonNode awayJson = statusJson(away);
    assertThat(awayJson.path("resumes_at").asText()).isEqualTo("unknown");
    assertThat(awayJson.path("kafka_position_unknown").asText()).contains("did not answer");

    // The rewind: the relay's row goes, and its schema history, which starts after the position
    // imported (the relay then reads the table's definition as it is now).
    db.admin("DELETE FROM outbox_relay_offsets", "DELETE FROM outbox_relay_schema_history");
    Path file = PositionImportIT.offsetsFile(dir, "outbox-connector", before);
    Cli.Result refused =
        Cli.expect(
            1,
            "position",
            "import",
            "--config",
            away,
            "--connector",
            "outbox-connector",
            "--from-offsets-file",
            file.toString(),
            "--yes");
    assertThat(refused.err().strip().lines().filter(l -> l.contains("nothing was changed")))
        .as(refused.toString())
        .singleElement()
        .asString()
        .contains("cannot commit the imported position to progress topic");
    assertThat(((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_relay_offsets")).longValue())
        .isZero();

    Cli.Result imported =
        Cli.expect(
            0,
            "position",
            "import",
            "--config",
            config,
            "--connector",
            "outbox-connector",
            "--from-offsets-file",
            file.toString(),
            "--yes");
    assertThat(imported.out()).contains("the import commits the offset there first");
    JsonNode status = statusJson(config);
    assertThat(status.path("resumes_at").asText()).as(status.toString()).isEqualTo("database");
    assertThat(status.path("kafka_position").path("pos").asLong())
        .isEqualTo(((Number) before.get("pos")).longValue());

    RelayRun rewound = runs.run("relay-2", dir, config);
    rewound.awaitReady();
    topics.readAtLeast(20, Duration.ofSeconds(60));
    List<ConsumedRecord> records = topics.reader().readAll(Duration.ofSeconds(3));
    Map<String, Integer> counts = new HashMap<>();
    records.forEach(r -> counts.merge(r.header("id"), 1, Integer::sum));
    for (TestEvent e : first) {
      assertThat(counts.get(e.eventId())).as(e.eventId()).isEqualTo(2);
    }
    for (TestEvent e : second) {
      assertThat(counts.get(e.eventId())).as(e.eventId()).isEqualTo(2);
    }
    assertThat(records).hasSize(20);
    assertThat(rewound.log()).contains("exactly-once: starting from the database's position");
    stop(rewound);
  }
}
