package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.OutboxWriter;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelayProcesses;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff} both ways and CDC retention, on one private MariaDB with its binlog
 * and the shared broker, with an application writing throughout and a checker comparing every topic
 * with what was committed, by event id.
 */
class HandoffIT {

  private static final Logger LOG = LoggerFactory.getLogger(HandoffIT.class);

  private static MariaDbServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private SteadyWriter writer;
  private final RelayProcesses processes = new RelayProcesses();

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
    processes.close(); // before the database: a live relay blocks its drop
    if (db != null) {
      db.close();
    }
  }

  private OutboxDatabase database() {
    OutboxDatabase d = OutboxDatabase.on(server).grantPolling();
    // The hand-off to CDC inserts the unpublished rows again (config/mysql/relay-grants.sql).
    d.admin(
        "GRANT INSERT ON " + d.name() + ".outbox_events TO '" + d.relayUser() + "'@'127.0.0.1'");
    return d;
  }

  private RelayProcess run(String label, String config, String... more) {
    return processes.run(label, dir, config, more);
  }

  /** CDC settings with retention and a short startup timeout, on a fresh handoff database. */
  private RelaySettings cdcWithRetention(TestTopics topics) {
    db = database();
    return RelaySettings.cdc(db, topics.bootstrap(), topics.name())
        .with("cdc.startup.timeout", "30s")
        .with("cdc.retention", "1s")
        .with("cdc.retention.interval", "1s")
        .with("polling.interval", "50ms");
  }

  private static Cli.Result admin(int expectedExit, String... args) {
    return Cli.expect(expectedExit, args);
  }

  private static void stop(RelayProcess relay) {
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  private Set<String> tableEventIds() throws Exception {
    Set<String> ids = new HashSet<>();
    try (Connection c = db.app();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT event_id FROM outbox_events")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private static Set<String> published(List<ConsumedRecord> records) {
    Set<String> ids = new HashSet<>();
    records.forEach(r -> ids.add(r.header("id")));
    return ids;
  }

  private static long lockWaits(OutboxDatabase db) {
    return ((Number)
            db.adminQuery(
                "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"))
        .longValue();
  }

  /** An application transaction that inserts an event now (a low id) and commits much later. */
  private static Connection openLate(OutboxDatabase db, TestEvent e) throws Exception {
    Connection c = db.app();
    OutboxWriter.insertWithoutCommit(c, List.of(e));
    return c;
  }

  @Test
  void switchesBothWaysWhileTheApplicationWritesAndRetentionNeverDeletesAnUnpublishedRow()
      throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "handoff");
    String name = topics.name();
    TopicReader reader = topics.reader();
    String config =
        cdcWithRetention(topics)
            .with("cdc.leader.lease", "2s")
            .with("cdc.leader.renew.interval", "300ms")
            .with("cdc.retention.batch.size", "50")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    Ledger ledger = topics.newLedger();

    // CDC with retention, under load; killed mid-batch.
    RelayProcess first = run("cdc-1", config);
    first.awaitReady();
    writer = SteadyWriter.start(db, ledger, "order", 300, 24, 3);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() - db.outboxRows() > 300);
    first.process().kill();
    first.waitFor(Duration.ofSeconds(30));
    // Nothing publishes or deletes now: every committed event missing from the table must be in
    // Kafka already.
    Set<String> committed = Set.copyOf(writer.commitMillis().keySet());
    Set<String> inKafka = published(reader.readAll(Duration.ofSeconds(3)));
    Set<String> inTable = tableEventIds();
    List<String> deletedUnpublished = new ArrayList<>();
    for (String id : committed) {
      if (!inTable.contains(id) && !inKafka.contains(id)) {
        deletedUnpublished.add(id);
      }
    }
    LOG.info(
        "after the kill: {} committed, {} in the table, {} published",
        committed.size(),
        inTable.size(),
        inKafka.size());
    assertThat(deletedUnpublished)
        .as("rows retention deleted before they were published")
        .isEmpty();

    // CDC again, publishing; a late transaction opens (a low id) while it publishes higher ones;
    // the hand-off is refused while the relay runs.
    RelayProcess second = run("cdc-2", config);
    second.awaitReady();
    TestEvent late = TestEvent.of("order", "late-1", 1);
    Connection lateTx = openLate(db, late);
    Set<String> upToNow = Set.copyOf(writer.commitMillis().keySet());
    reader.readUntil(r -> published(r).containsAll(upToNow), Duration.ofSeconds(60));
    assertThat(admin(2, "handoff", "--config", config, "--to", "polling").err())
        .contains("holds the lease")
        .contains("nothing was changed");
    stop(second);

    // To polling, the late transaction still open.
    assertThat(admin(0, "handoff", "--config", config, "--to", "polling").out())
        .contains("to polling");
    lateTx.commit();
    lateTx.close();
    ledger.expect(late);
    RelayProcess polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    assertThat(admin(2, "handoff", "--config", config, "--to", "cdc").err())
        .contains("other connection(s) of user")
        .contains("nothing was changed");

    // To CDC, with another late transaction that the hand-off waits for.
    TestEvent late2 = TestEvent.of("order", "late-2", 1);
    Connection late2Tx = openLate(db, late2);
    stop(polling);
    CompletableFuture<Cli.Result> toCdc =
        CompletableFuture.supplyAsync(() -> Cli.run("handoff", "--config", config, "--to", "cdc"));
    await().atMost(Duration.ofSeconds(30)).until(() -> lockWaits(db) > 0);
    late2Tx.commit();
    late2Tx.close();
    ledger.expect(late2);
    Cli.Result handedToCdc = toCdc.get();
    LOG.info("handoff --to cdc: {}", handedToCdc);
    assertThat(handedToCdc.exitCode()).as(handedToCdc.toString()).isZero();
    RelayProcess third = run("cdc-3", config);
    third.awaitReady();

    writer.stop(Duration.ofSeconds(10));
    reader.readUntil(ledger::allArrived, Duration.ofSeconds(90));
    List<ConsumedRecord> records = reader.readAll(Duration.ofSeconds(3));
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", name, result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    // The kill leaves what the first relay sent after its last position commit to be sent again
    // (at least once); everything committed after the kill is published exactly once.
    Map<String, Integer> counts = new HashMap<>();
    records.forEach(r -> counts.merge(r.header("id"), 1, Integer::sum));
    List<String> twiceAfterTheKill =
        counts.entrySet().stream()
            .filter(e -> e.getValue() > 1 && !committed.contains(e.getKey()))
            .map(Map.Entry::getKey)
            .toList();
    assertThat(twiceAfterTheKill).as(result.summary()).isEmpty();
    stop(third);
  }

  @Test
  void recoversAPurgedBinlogThroughPollingWithNothingLost() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "purged");
    String name = topics.name();
    TopicReader reader = topics.reader();
    String config = cdcWithRetention(topics).writeTo(dir.resolve("relay.properties")).toString();
    Ledger ledger = topics.newLedger();
    RelayProcess first = run("cdc-1", config);
    first.awaitReady();
    writer = SteadyWriter.start(db, ledger, "order", 200, 12, 2);
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 400);
    stop(first);

    // The binlog the relay needs is purged while it is down, and the application writes on.
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 800);
    db.admin("FLUSH BINARY LOGS");
    BinlogPurge.allButCurrent(db);
    RelayProcess refused = run("cdc-2", config);
    assertThat(refused.waitFor(Duration.ofSeconds(90))).as(refused.log()).isEqualTo(1);
    assertThat(refused.log()).contains("'outbox-relay handoff --to polling'");

    assertThat(
            admin(0, "handoff", "--config", config, "--to", "polling", "--open-transactions", "5s")
                .out())
        .contains("was purged")
        .contains("to polling");
    RelayProcess polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 1200);
    stop(polling);
    admin(0, "handoff", "--config", config, "--to", "cdc");
    RelayProcess back = run("cdc-3", config);
    back.awaitReady();

    writer.stop(Duration.ofSeconds(10));
    reader.readUntil(ledger::allArrived, Duration.ofSeconds(90));
    Ledger.Result result = ledger.check(reader.readAll(Duration.ofSeconds(3)));
    LOG.info("{}: {}", name, result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    stop(back);
  }
}
