package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.LongTransactionWriter;
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

  private OutboxDatabase database() {
    OutboxDatabase d = OutboxDatabase.on(server).grantPolling();
    // What the hand-off needs besides the CDC and polling grants (config/mysql/relay-grants.sql):
    // both record it; no LOCK TABLES.
    String user = "'" + d.relayUser() + "'@'127.0.0.1'";
    d.admin(
        "GRANT INSERT, UPDATE ON " + d.name() + ".outbox_relay_handoffs TO " + user,
        "GRANT SELECT ON " + d.name() + ".outbox_relay_leases TO " + user);
    return d;
  }

  /** Lines of a relay's log that say a relay of the other mode may be at work. */
  private static List<String> overlapWarnings(RelayRun relay) {
    return relay
        .log()
        .lines()
        .filter(
            l ->
                l.contains("publish every event a second time")
                    || l.contains("cannot tell whether")
                    || l.contains("seems to"))
        .toList();
  }

  private RelayRun run(String label, String config, String... more) {
    return runs.run(label, dir, config, more);
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

  private static void stop(RelayRun relay) {
    relay.terminate();
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

  /** An application transaction that inserts an event now (a low id) and commits much later. */
  private static Connection openLate(OutboxDatabase db, TestEvent e) throws Exception {
    Connection c = db.app();
    RawOutboxInserts.insertWithoutCommit(c, List.of(e));
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
    RelayProcess first = processes.run("cdc-1", dir, config);
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
    RelayRun second = run("cdc-2", config);
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
    RelayRun polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    assertThat(admin(2, "handoff", "--config", config, "--to", "cdc").err())
        .contains("other connection(s) of user")
        .contains("nothing was changed");

    // To CDC, with another late transaction open across the hand-off and the relay's start.
    TestEvent late2 = TestEvent.of("order", "late-2", 1);
    Connection late2Tx = openLate(db, late2);
    stop(polling);
    Cli.Result handedToCdc = Cli.run("handoff", "--config", config, "--to", "cdc");
    LOG.info("handoff --to cdc: {}", handedToCdc);
    assertThat(handedToCdc.exitCode()).as(handedToCdc.toString()).isZero();
    RelayRun third = run("cdc-3", config);
    third.awaitReady();
    late2Tx.commit();
    late2Tx.close();
    ledger.expect(late2);

    writer.stop(Duration.ofSeconds(10));
    List<ConsumedRecord> records =
        reader.readUntilQuiet(
            ledger::allArrived,
            Duration.ofSeconds(90),
            Duration.ofSeconds(3),
            Duration.ofSeconds(60));
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
    RelayRun first = run("cdc-1", config);
    first.awaitReady();
    writer = SteadyWriter.start(db, ledger, "order", 200, 12, 2);
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 400);
    stop(first);

    // The binlog the relay needs is purged while it is down, and the application writes on.
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 800);
    db.admin("FLUSH BINARY LOGS");
    BinlogPurge.allButCurrent(db);
    RelayRun refused = run("cdc-2", config);
    assertThat(refused.waitFor(Duration.ofSeconds(90))).as(refused.log()).isEqualTo(1);
    assertThat(refused.log()).contains("'outbox-relay handoff --to polling'");

    assertThat(
            admin(0, "handoff", "--config", config, "--to", "polling", "--open-transactions", "5s")
                .out())
        .contains("was purged")
        .contains("to polling");
    RelayRun polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.commitMillis().size() > 1200);
    stop(polling);
    admin(0, "handoff", "--config", config, "--to", "cdc");
    RelayRun back = run("cdc-3", config);
    back.awaitReady();

    writer.stop(Duration.ofSeconds(10));
    Ledger.Result result =
        ledger.check(
            reader.readUntilQuiet(
                ledger::allArrived,
                Duration.ofSeconds(90),
                Duration.ofSeconds(3),
                Duration.ofSeconds(60)));
    LOG.info("{}: {}", name, result.summary());
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    stop(back);
  }

  /**
   * The application keeps four transactions open at a time, each for 1.5 to 8 s, at 400 events/s;
   * besides, across each hand-off, one transaction holds an inserted outbox row open (until the
   * hand-off ended, 20 s at most) while an autocommit INSERT runs every 200 ms. No INSERT waits 1 s
   * or more in either direction, each hand-off ends within 60 s of that transaction's end, and
   * nothing is lost or published twice.
   */
  @Test
  void handsOffBothWaysWithoutHoldingTheApplicationsInsertsWhileItsTransactionsStayOpen()
      throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "longtx");
    db = database();
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    Ledger ledger = topics.newLedger();
    RelayRun cdc = run("cdc-1", config);
    cdc.awaitReady();
    try (LongTransactionWriter app =
        LongTransactionWriter.start(
            db, ledger, "order", 4, 400, Duration.ofMillis(1500), Duration.ofSeconds(8))) {
      await().atMost(Duration.ofSeconds(60)).until(() -> app.transactions() >= 8);
      stop(cdc);

      HeldHandoff toPolling = heldHandoff("polling", config, ledger, 1);
      RelayRun polling = run("polling-1", config, "--mode", "polling");
      polling.awaitReady();
      long committed = app.transactions();
      await().atMost(Duration.ofSeconds(60)).until(() -> app.transactions() >= committed + 8);
      stop(polling);

      HeldHandoff toCdc = heldHandoff("cdc", config, ledger, 2);
      RelayRun back = run("cdc-2", config);
      back.awaitReady();
      await().atMost(Duration.ofSeconds(60)).until(() -> app.transactions() >= committed + 16);
      app.stop(Duration.ofSeconds(30));
      LOG.info("hand-off to polling: {}; to CDC: {}", toPolling, toCdc);
      for (HeldHandoff h : List.of(toPolling, toCdc)) {
        assertThat(h.insertMaxMillis()).as("longest autocommit INSERT, " + h).isLessThan(1000);
        assertThat(h.millisAfterHeldEnd())
            .as("end after the held transaction, " + h)
            .isLessThan(60_000);
      }
      Ledger.Result result = topics.check(ledger, Duration.ofSeconds(90));
      LOG.info(
          "{}: {} (the writer rolled back {} transactions)",
          topics,
          result.summary(),
          app.failures());
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      for (RelayRun relay : List.of(cdc, polling, back)) {
        assertThat(overlapWarnings(relay)).as(relay.log()).isEmpty();
      }
      stop(back);
    }
  }

  /**
   * What the application saw of one hand-off.
   *
   * @param insertMaxMillis the longest autocommit INSERT while the hand-off ran
   * @param inserts how many there were
   * @param millisAfterHeldEnd how long after the held transaction ended the hand-off ended (0 when
   *     before)
   */
  private record HeldHandoff(long insertMaxMillis, int inserts, long millisAfterHeldEnd) {}

  /**
   * Runs {@code handoff --to <to>} while an application transaction holds an inserted outbox row
   * open (it began just before, and commits once the hand-off ended, or after 20 s) and an
   * autocommit INSERT runs every 200 ms, from before the hand-off until both have ended.
   */
  private HeldHandoff heldHandoff(String to, String config, Ledger ledger, int round)
      throws Exception {
    TestEvent heldEvent = TestEvent.of("order", "held-" + round, 1);
    Connection held = openLate(db, heldEvent);
    long[] heldEnd = {0};
    java.util.concurrent.CountDownLatch handoffEnded = new java.util.concurrent.CountDownLatch(1);
    CompletableFuture<Void> release =
        CompletableFuture.runAsync(
            () -> {
              try {
                // Open for the hand-off's whole run, so that a lock the hand-off took would queue
                // the INSERTs behind this transaction (an INSERT of 1 s fails the check); then
                // committed, or after 20 s if the hand-off waits for it.
                handoffEnded.await(20, java.util.concurrent.TimeUnit.SECONDS);
                held.commit();
                held.close();
                heldEnd[0] = System.nanoTime();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    java.util.concurrent.atomic.AtomicBoolean probing =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    List<Long> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Void> probe =
        CompletableFuture.runAsync(
            () -> {
              try (Connection c = db.app()) {
                c.setAutoCommit(true);
                for (int i = 1; probing.get(); i++) {
                  TestEvent e = TestEvent.of("probe", "probe-" + round, i);
                  long t0 = System.nanoTime();
                  RawOutboxInserts.insertWithoutCommit(c, List.of(e));
                  latencies.add((System.nanoTime() - t0) / 1_000_000);
                  ledger.expect(e);
                  Thread.sleep(200); // the application's pace
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    RelayProcess handoff =
        RelayProcess.start("handoff-" + to, dir, "handoff", "--config", config, "--to", to);
    assertThat(handoff.waitFor(Duration.ofSeconds(120))).as(handoff.log()).isZero();
    long ended = System.nanoTime();
    handoffEnded.countDown();
    release.get();
    ledger.expect(heldEvent);
    probing.set(false);
    probe.get();
    assertThat(handoff.log()).as("no java.util.logging lines").doesNotContain("com.github.shyiko");
    long max;
    synchronized (latencies) {
      max = latencies.stream().mapToLong(Long::longValue).max().orElse(0);
    }
    return new HeldHandoff(max, latencies.size(), Math.max(0, (ended - heldEnd[0]) / 1_000_000));
  }

  private long timedHandoff(String label, String config, String to) {
    RelayProcess handoff =
        RelayProcess.start(label, dir, "handoff", "--config", config, "--to", to);
    long started = System.nanoTime();
    assertThat(handoff.waitFor(Duration.ofSeconds(60))).as(handoff.log()).isZero();
    return (System.nanoTime() - started) / 1_000_000;
  }

  /**
   * A hand-off in the direction the table is already in would publish, or mark, rows a second time:
   * each is refused with exit 2 and nothing changes; in the right direction each works.
   */
  @Test
  void refusesAHandoffThatWouldPublishOrMarkRowsAgain() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "again");
    db = database();
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    Ledger ledger = topics.newLedger();
    RelayRun cdc = run("cdc-1", config);
    cdc.awaitReady();
    List<TestEvent> first = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      first.add(TestEvent.of("order", "o-" + (i % 8), i / 8 + 1));
    }
    RawOutboxInserts.write(db, ledger, first);
    topics.readAll(ledger, Duration.ofSeconds(60));
    stop(cdc);

    // CDC served the table, which was never handed to polling: its rows are PENDING though
    // published. A hand-off to CDC would insert all 40 again.
    String offsets = offsetsRow(db);
    assertThat(admin(2, "handoff", "--config", config, "--to", "cdc").err())
        .contains("CDC relay " + topics.name() + " has served " + db.name() + ".outbox_events")
        .contains("nothing was changed");
    assertThat(db.outboxRows()).isEqualTo(40);
    assertThat(offsetsRow(db)).isEqualTo(offsets);

    admin(0, "handoff", "--config", config, "--to", "polling");
    assertThat(admin(2, "handoff", "--config", config, "--to", "polling").err())
        .contains("was handed to polling at ")
        .contains("already")
        .contains("nothing was changed");
    // The table is polling's now: a CDC relay refuses to start on it.
    RelayRun refusedCdc = runs.run("cdc-refused", dir, config);
    assertThat(refusedCdc.waitFor(Duration.ofSeconds(90))).as(refusedCdc.log()).isEqualTo(2);
    assertThat(refusedCdc.log())
        .contains("was handed to polling at ")
        .contains("'outbox-relay handoff --to cdc'");

    RelayRun polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    List<TestEvent> second = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      second.add(TestEvent.of("order", "o-" + i % 8, 100 + i));
    }
    RawOutboxInserts.write(db, ledger, second);
    topics.readAll(ledger, Duration.ofSeconds(60));
    stop(polling);

    admin(0, "handoff", "--config", config, "--to", "cdc");
    assertThat(admin(2, "handoff", "--config", config, "--to", "cdc").err())
        .contains("was handed to cdc at ")
        .contains("nothing was changed");
    RelayRun refusedPolling = runs.run("polling-refused", dir, config, "--mode", "polling");
    assertThat(refusedPolling.waitFor(Duration.ofSeconds(90)))
        .as(refusedPolling.log())
        .isEqualTo(2);
    assertThat(refusedPolling.log())
        .contains("was handed to cdc at ")
        .contains("'outbox-relay handoff --to polling'");

    RelayRun back = run("cdc-2", config);
    back.awaitReady();
    List<TestEvent> third = List.of(TestEvent.of("order", "o-1", 1000));
    RawOutboxInserts.write(db, ledger, third);
    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
    assertThat(result.received()).as(result.summary()).isEqualTo(51);
    assertThat(result.lost() + result.duplicates() + result.outOfOrder())
        .as(result.summary())
        .isZero();
    for (RelayRun relay : List.of(cdc, polling, back)) {
      assertThat(overlapWarnings(relay)).as(relay.log()).isEmpty();
    }
    stop(back);
  }

  private static String offsetsRow(OutboxDatabase db) {
    return String.valueOf(
        db.adminQuery("SELECT GROUP_CONCAT(offset_val) FROM outbox_relay_offsets"));
  }

  /**
   * A table polling served from the start goes to a CDC relay that never ran: the hand-off stores
   * its marker, and the relay's first start publishes what polling left, reads the table's
   * definition as it is and streams from the snapshot's position.
   */
  @Test
  void handsATablePollingServedFromTheStartToACdcRelayThatNeverRan() throws Exception {
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "fresh");
    db = database();
    String config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .with("polling.interval", "50ms")
            .writeTo(dir.resolve("relay.properties"))
            .toString();
    Ledger ledger = topics.newLedger();
    RelayRun polling = run("polling-1", config, "--mode", "polling");
    polling.awaitReady();
    List<TestEvent> published = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      published.add(TestEvent.of("order", "o-" + i % 6, i / 6 + 1));
    }
    RawOutboxInserts.write(db, ledger, published);
    topics.readAll(ledger, Duration.ofSeconds(60));
    stop(polling);
    List<TestEvent> waiting = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      waiting.add(TestEvent.of("order", "o-" + i % 6, 100 + i));
    }
    RawOutboxInserts.write(db, ledger, waiting);

    assertThat(admin(0, "handoff", "--config", config, "--to", "cdc").out())
        .contains("the rows polling had not published (20 now");
    RelayRun cdc = run("cdc-1", config);
    cdc.awaitReady();
    assertThat(cdc.log())
        .contains("published 20 rows of " + db.name() + ".outbox_events that polling left")
        .contains("the engine reads the outbox table's definition as it is now");
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-1", 1000)));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
    assertThat(result.received()).as(result.summary()).isEqualTo(51);
    assertThat(result.lost() + result.duplicates() + result.outOfOrder())
        .as(result.summary())
        .isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    stop(cdc);
  }
}
