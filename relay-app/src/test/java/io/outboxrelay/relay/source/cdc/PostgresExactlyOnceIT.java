package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelayProcesses;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.PostgresServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code delivery.guarantee=exactly-once} on PostgreSQL under real faults: relay processes killed
 * with SIGKILL mid-stream under a steady writer, stopped cleanly and started again, and a leader
 * frozen with an open transaction while a standby takes over. A ledger read with {@code
 * read_committed} checks every event by id: none lost, none twice, each aggregate's in order.
 */
class PostgresExactlyOnceIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresExactlyOnceIT.class);
  private static final AtomicInteger TESTS = new AtomicInteger();
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private PostgresServer server;
  private OutboxDatabase db;
  private String name;
  private String bootstrap;
  private Ledger ledger;

  @BeforeEach
  void setUp() {
    server = PostgresCdcDatabases.server();
    db = PostgresCdcDatabases.selfServing(server);
    name = "pgeos" + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
    bootstrap = LocalStack.shared().kafka().bootstrapServers();
    ledger = new Ledger(RelaySettings.topicPrefix(name)).semanticPayloads();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private RelaySettings settings() {
    return RelaySettings.cdc(db, bootstrap, name)
        .without("cdc.server.id")
        .with("cdc.heartbeat.interval", "500ms")
        .with("delivery.guarantee", "exactly-once")
        .with("delivery.progress.topic", name + "-progress");
  }

  private TopicReader reader() {
    return TopicReader.forPrefix(bootstrap, RelaySettings.topicPrefix(name));
  }

  private void awaitPublished(int atLeast) {
    List<ConsumedRecord> records =
        reader().readUntil(r -> r.size() >= atLeast, Duration.ofSeconds(120));
    assertThat(records).as("records published").hasSizeGreaterThanOrEqualTo(atLeast);
  }

  private Ledger.Result awaitAll() {
    List<ConsumedRecord> records =
        reader()
            .readUntilQuiet(
                ledger::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60));
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  private static void assertExactlyOnce(Ledger.Result result) {
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(result.duplicates()).as(result.summary()).isZero();
  }

  /** The lines where a relay says which position it resumes at. */
  private static String exactlyOnceLines(String log) {
    StringBuilder sb = new StringBuilder();
    log.lines().filter(l -> l.contains("] exactly-once: ")).forEach(l -> sb.append(l).append('\n'));
    return sb.toString();
  }

  /** Rows already in the table at the first start, over ten aggregates, ten per transaction. */
  private void writeBeforeTheFirstStart(int rows) throws java.sql.SQLException {
    List<TestEvent> tx = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      tx.add(TestEvent.of("order", "pre-" + (i % 10), i / 10 + 1));
      if (tx.size() == 10) {
        RawOutboxInserts.write(db, ledger, tx);
        tx = new ArrayList<>();
      }
    }
    if (!tx.isEmpty()) {
      RawOutboxInserts.write(db, ledger, tx);
    }
  }

  /**
   * A first start that publishes the rows already in the table, then a steady writer while the
   * relay is killed twice mid-stream, its database position and slot far behind Kafka's, and
   * stopped cleanly once: every event once for a {@code read_committed} consumer, and each restart
   * resumes where Kafka's records end.
   */
  @Test
  void publishesEveryEventOnceThroughAFirstStartKillsAndACleanRestart() throws Exception {
    writeBeforeTheFirstStart(300);
    // The database's position (and with it the slot) is written rarely: after each kill it is far
    // behind Kafka's, the slot further still, and the restart must skip what Kafka holds.
    Path config =
        settings()
            .with("cdc.batch.size", "8192")
            .with("cdc.commit.interval", "1h")
            .writeTo(dir.resolve("relay.properties"));
    RelayProcess relay = RelayProcess.run("relay-1", dir, config);
    assertThat(relay.log()).contains("first start of relay.name '" + name + "': published 300");
    StringBuilder starts = new StringBuilder();
    try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 300, 40, 2)) {
      for (int kill = 1; kill <= 2; kill++) {
        awaitPublished(ledger.size() / 2 + 300);
        relay.process().kill();
        assertThat(relay.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
        relay = RelayProcess.run("relay-" + (kill + 1), dir, config);
        starts.append(exactlyOnceLines(relay.log()));
      }
      awaitPublished(ledger.size() / 2 + 300);
      relay.process().terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
      relay = RelayProcess.run("relay-4", dir, config);
      String afterCleanStop = exactlyOnceLines(relay.log());
      awaitPublished(ledger.size() + 300);
      writer.stop(Duration.ofSeconds(60));
      LOG.info(
          "{}: starts after the kills\n{}after the clean stop\n{}", name, starts, afterCleanStop);
      // The database's position is never ahead of Kafka's: the relay writes it after the commit.
      assertThat(afterCleanStop.lines())
          .singleElement()
          .asString()
          .matches(
              l ->
                  l.contains("exactly-once: resuming at the position committed in Kafka")
                      || l.contains("exactly-once: starting from the database's position")
                          && l.contains(": the same ("));
    }
    Ledger.Result result = awaitAll();
    assertThat(ledger.size()).isGreaterThan(2_000);
    assertExactlyOnce(result);
    // A restart after a kill resumes where Kafka's records end, far past the database's; a kill
    // that lands right after a full batch's position write (8,192 events: a relay behind on a
    // slow machine) finds the two the same, and the restart says so.
    List<String> restarts = starts.toString().lines().toList();
    assertThat(restarts)
        .hasSize(2)
        .allMatch(
            l ->
                l.contains("exactly-once: resuming at the position committed in Kafka")
                    || l.contains("exactly-once: starting from the database's position")
                        && l.contains(": the same ("))
        .anyMatch(l -> l.contains("exactly-once: resuming at the position committed in Kafka"));
    // What a killed relay had sent in its open transaction stays in the log, aborted: a
    // read_uncommitted reader may see it again, a read_committed one never does.
    List<ConsumedRecord> all =
        reader().includingUncommitted().readAll(Duration.ofSeconds(2), Duration.ofSeconds(60));
    assertThat(all.size()).isGreaterThanOrEqualTo(result.received());
    LOG.info(
        "{}: read_uncommitted {} records, read_committed {}", name, all.size(), result.summary());
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  /**
   * A first start stopped between its two writes of its position: the snapshot's rows and the
   * slot's position committed in Kafka, the database still holding the first start's marker (its
   * write held back by a table lock the test takes, then the relay killed). The next start must
   * take Kafka's position and stream from the slot the killed start made: the snapshot's rows are
   * not published again (a restarted first start would publish them all twice), and nothing written
   * meanwhile by a steady writer is lost.
   */
  @Test
  void aFirstStartKilledBetweenItsKafkaCommitAndItsDatabaseWriteIsNotRepeated() throws Exception {
    writeBeforeTheFirstStart(2_000);
    Path config = settings().writeTo(dir.resolve("relay.properties"));
    try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 100, 20, 1);
        Connection lock = server.connect(db.name());
        RelayProcess first =
            RelayProcess.start("relay-1", dir, "run", "--config", config.toString())) {
      // The marker is stored before the slot is made; the position replaces it last of all.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> PostgresCdcDatabases.storedOffset(lock).contains(PostgresFirstStart.MARKER));
      first.process().pause();
      // A table lock that lets reads through and takes no transaction id: the slot the start makes
      // next waits for every transaction holding one (a row lock would stall it here).
      lock.setAutoCommit(false);
      try (Statement st = lock.createStatement()) {
        st.execute("LOCK TABLE outbox_relay_offsets IN SHARE MODE");
      }
      first.process().resume();
      // Its DELETE of the marker waits on the lock: Kafka's transaction with the position ended.
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> waitsForTheLock(db.name()));
      first.process().kill();
      assertThat(first.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
      String finished = "] first start of relay.name '" + name + "': published";
      assertThat(first.log()).doesNotContain(finished);
      lock.rollback();
      lock.setAutoCommit(true);
      assertThat(PostgresCdcDatabases.storedOffset(lock)).contains(PostgresFirstStart.MARKER);

      try (RelayProcess second = RelayProcess.run("relay-2", dir, config)) {
        LOG.info("{}: the start after the kill\n{}", name, exactlyOnceLines(second.log()));
        assertThat(exactlyOnceLines(second.log()))
            .contains("exactly-once: resuming at the position committed in Kafka");
        assertThat(second.log()).doesNotContain(finished);
        awaitPublished(ledger.size() + 200);
        writer.stop(Duration.ofSeconds(60));
        Ledger.Result result = awaitAll();
        assertThat(ledger.size()).isGreaterThan(2_200);
        assertExactlyOnce(result);
        second.process().terminate();
        assertThat(second.waitFor(Duration.ofSeconds(60))).as(second.log()).isZero();
      }
    }
  }

  /** Whether a session of the database waits on a lock to delete from the offsets table. */
  private boolean waitsForTheLock(String database) throws SQLException {
    try (Connection c = server.connect(database);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND wait_event_type ="
                    + " 'Lock' AND query LIKE 'DELETE FROM outbox_relay_offsets%'")) {
      ps.setString(1, database);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  /**
   * The leader frozen while its transaction is open (records wait in the producer), a standby takes
   * over the lease, the slot and the transactional ids; the old leader wakes with its transaction's
   * records still to send and commit, and nothing of it becomes visible.
   */
  @Test
  void aFrozenLeadersTransactionNeverBecomesVisibleAfterAStandbyTookOver() throws Exception {
    Path config =
        settings()
            .with("kafka.producer.linger.ms", "3000")
            .with("cdc.first.start", "skip")
            .writeTo(dir.resolve("relay.properties"));
    try (RelayProcess a =
        RelayProcess.start("relay-a", dir, "run", "--config", config.toString())) {
      a.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
      a.awaitReady();
      try (RelayProcess b =
          RelayProcess.start("relay-b", dir, "run", "--config", config.toString())) {
        b.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
        assertThat(b.log()).contains("] standby (holder ");
        try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
          awaitPublished(300);
          Thread.sleep(1_500); // into a transaction: each one lasts the linger
          a.process().pause();
          b.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(60));
          b.awaitReady();
          awaitPublished(ledger.size() + 200);
          a.process().resume();
          a.process()
              .awaitLogLine(
                  ".*\\] (lost the lease \\(epoch 1\\)|the Kafka transactions of this term end).*",
                  Duration.ofSeconds(60));
          awaitPublished(ledger.size() + 200);
          writer.stop(Duration.ofSeconds(60));
        }
        Ledger.Result result = awaitAll();
        LOG.info("{}: the new leader\n{}", name, exactlyOnceLines(b.log()));
        assertExactlyOnce(result);
        assertThat(exactlyOnceLines(b.log())).isNotEmpty();
        List<ConsumedRecord> all =
            reader().includingUncommitted().readAll(Duration.ofSeconds(2), Duration.ofSeconds(60));
        LOG.info(
            "{}: read_uncommitted {} records, read_committed {}",
            name,
            all.size(),
            result.summary());
      }
    }
  }

  /**
   * The relay commits its database position rarely and is killed under load: the database's
   * position is well behind Kafka's, and {@code status} says the next start takes Kafka's. The
   * hand-off to polling counts from Kafka's position (from the database's, polling would publish
   * the rows in between again); the hand-off back to CDC makes a first start that publishes what
   * polling left in transactions and commits its snapshot's position to Kafka. Every event once, in
   * order, for a read_committed consumer.
   */
  @Test
  void handsOffToPollingAndBackAfterAKillWithEveryEventOnce() throws Exception {
    TestTopics topics = TestTopics.fresh(bootstrap, "pgeosho");
    Ledger handed = topics.newLedger().semanticPayloads();
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .without("cdc.server.id")
            .with("delivery.guarantee", "exactly-once")
            .with("delivery.progress.topic", topics.name() + "-progress")
            .with("cdc.startup.timeout", "30s")
            .with("cdc.heartbeat.interval", "500ms")
            .with("cdc.batch.size", "8192")
            .with("cdc.commit.interval", "1h")
            .with("cdc.leader.lease", "2s")
            .with("cdc.leader.renew.interval", "300ms")
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("handoff.properties"))
            .toString();
    // Polling publishes at least once, and refuses exactly-once: its relays get their own file.
    String pollingConfig =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .without("cdc.server.id")
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("polling.properties"))
            .toString();
    try (RelayProcesses processes = new RelayProcesses()) {
      RelayProcess cdc = processes.run("cdc-1", dir, config);
      cdc.awaitReady();
      try (SteadyWriter writer = SteadyWriter.start(db, handed, "order", 300, 24, 3)) {
        topics.readAtLeast(1500, Duration.ofSeconds(60));
        cdc.process().kill();
        assertThat(cdc.waitFor(Duration.ofSeconds(30))).isEqualTo(137);

        Cli.Result killed = Cli.expect(0, "status", "--config", config);
        assertThat(killed.out().lines().filter(l -> l.contains("Kafka's position:")))
            .as(killed.toString())
            .singleElement()
            .asString()
            .satisfiesAnyOf(
                l -> assertThat(l).contains("unknown (a transaction on " + topics.name()),
                l -> assertThat(l).contains("(progress topic " + topics.name()));
        assertThat(killed.out()).contains("next start at:");

        // To polling once the killed relay's leadership ran out: it fences the transactional ids
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
        JsonNode status =
            JSON.readTree(Cli.expect(0, "status", "--config", config, "--json").out());
        LOG.info("status after the hand-off: {}", status);
        assertThat(status.path("delivery_guarantee").asText()).isEqualTo("exactly-once");
        assertThat(status.path("resumes_at").asText()).as(status.toString()).isEqualTo("kafka");
        assertThat(status.path("kafka_position").path("lsn").asText())
            .as(status.toString())
            .isNotEqualTo(status.path("position").asText());

        RelayProcess polling = processes.run("polling-1", dir, pollingConfig, "--mode", "polling");
        polling.awaitReady();
        int beforePolling = handed.size();
        await().atMost(Duration.ofSeconds(60)).until(() -> handed.size() > beforePolling + 900);
        polling.process().terminate();
        assertThat(polling.waitFor(Duration.ofSeconds(60))).as(polling.log()).isZero();

        // Back to CDC: the first start publishes what polling left, then streams.
        Cli.Result toCdc = Cli.expect(0, "handoff", "--config", config, "--to", "cdc");
        LOG.info("handoff --to cdc: {}", toCdc);
        JsonNode pending =
            JSON.readTree(Cli.expect(0, "status", "--config", config, "--json").out());
        assertThat(pending.path("resumes_at").asText()).as(pending.toString()).isEqualTo("handoff");
        RelayProcess back = processes.run("cdc-2", dir, config);
        back.awaitReady();
        assertThat(back.log()).contains("first start of relay.name '" + topics.name() + "'");
        int beforeBack = handed.size();
        await().atMost(Duration.ofSeconds(60)).until(() -> handed.size() > beforeBack + 900);
        writer.stop(Duration.ofSeconds(30));
      }
      Ledger.Result result = topics.check(handed, Duration.ofSeconds(120));
      LOG.info("{}: {}", topics.name(), result.summary());
      assertExactlyOnce(result);
    }
  }

  /**
   * {@code position reset --to-current} while Kafka holds the relay's position: the reset writes
   * the database and advances the slot, its position is later in the WAL than Kafka's, and the next
   * start takes it: the rows committed while the relay was down are skipped, every later one is
   * published once.
   */
  @Test
  void aResetPositionWinsOverKafkasEarlierOne() throws Exception {
    String config =
        settings()
            .with("cdc.first.start", "skip")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    RelayProcess relay = RelayProcess.run("relay-1", dir, Path.of(config));
    List<TestEvent> before = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      before.add(TestEvent.of("order", "a", i));
    }
    RawOutboxInserts.write(db, ledger, before);
    awaitPublished(5);
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();

    // Written while the relay is down, then given up by the reset: not in the ledger.
    Ledger skipped = new Ledger(RelaySettings.topicPrefix(name)).semanticPayloads();
    RawOutboxInserts.write(
        db, skipped, List.of(TestEvent.of("order", "b", 1), TestEvent.of("order", "b", 2)));
    Cli.Result reset =
        Cli.expect(0, "position", "reset", "--config", config, "--to-current", "--yes");
    LOG.info("position reset: {}", reset);
    JsonNode status = JSON.readTree(Cli.expect(0, "status", "--config", config, "--json").out());
    LOG.info("status after the reset: {}", status);
    assertThat(status.path("resumes_at").asText()).as(status.toString()).isEqualTo("database");

    RelayProcess again = RelayProcess.run("relay-2", dir, Path.of(config));
    assertThat(exactlyOnceLines(again.log()))
        .contains("exactly-once: starting from the database's position")
        .contains("it is later in the WAL");
    RawOutboxInserts.write(
        db, ledger, List.of(TestEvent.of("order", "c", 1), TestEvent.of("order", "c", 2)));
    Ledger.Result result = awaitAll();
    assertExactlyOnce(result);
    again.process().terminate();
    assertThat(again.waitFor(Duration.ofSeconds(60))).as(again.log()).isZero();
  }
}
