package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two CDC relays of one {@code relay.name} on PostgreSQL, as real processes: one publishes, the
 * other stands by; the leader killed (SIGKILL) or frozen (SIGSTOP) past its lease under a steady
 * writer, and the standby takes over the replication slot. A frozen leader's replication connection
 * keeps the slot active (until {@code wal_sender_timeout}, a minute by default): the new leader,
 * once it holds the lease, ends that connection. A ledger checks every event by id and
 * per-aggregate order.
 */
class PostgresCdcFailoverIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresCdcFailoverIT.class);
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";

  @TempDir Path dir;
  private OutboxDatabase db;
  private String name;
  private String bootstrap;
  private Ledger ledger;

  @BeforeEach
  void setUp() {
    db = PostgresCdcDatabases.selfServing(PostgresCdcDatabases.server());
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgha");
    name = topics.name();
    bootstrap = topics.bootstrap();
    ledger = topics.newLedger().semanticPayloads();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private Path config() {
    return RelaySettings.cdc(db, bootstrap, name)
        .without("cdc.server.id")
        .with("cdc.heartbeat.interval", "500ms")
        .writeTo(dir.resolve("relay.properties"));
  }

  private RelayProcess start(String process, Path config) {
    RelayProcess p = RelayProcess.start(process, dir, "run", "--config", config.toString());
    p.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
    return p;
  }

  private TopicReader reader() {
    return TopicReader.forPrefix(bootstrap, RelaySettings.topicPrefix(name));
  }

  private void readPublished(int atLeast) {
    reader().readUntil(records -> records.size() >= atLeast, Duration.ofSeconds(90));
  }

  private Ledger.Result awaitAll(Ledger l) {
    List<ConsumedRecord> records =
        reader()
            .readUntilQuiet(
                l::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60));
    Ledger.Result result = l.check(records);
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  private static void assertNothingLostOrReordered(Ledger.Result result) {
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  private String slotHolder() {
    Object pid =
        db.adminQuery(
            "SELECT COALESCE(active_pid::text, 'none') FROM pg_replication_slots WHERE slot_name"
                + " = '"
                + PostgresReplication.slotName(name)
                + "'");
    return String.valueOf(pid);
  }

  private String lease() {
    return String.valueOf(
        db.adminQuery("SELECT holder || '#' || epoch FROM outbox_relay_leases LIMIT 1"));
  }

  @Test
  void theStandbyTakesOverTheSlotWhenTheLeaderIsKilled() throws Exception {
    Path config = config();
    try (RelayProcess a = start("relay-a", config);
        RelayProcess b = start("relay-b", config)) {
      assertThat(a.log()).contains("] leader (epoch 1)");
      a.awaitReady();
      assertThat(b.log()).contains("] standby (holder " + name + "@");
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        readPublished(400);
        assertThat(b.log()).doesNotContain("ready: streaming");
        a.process().kill();
        long killed = System.nanoTime();
        b.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(30));
        b.awaitReady();
        LOG.info(
            "{}: the standby streams {} ms after the kill",
            name,
            (System.nanoTime() - killed) / 1_000_000);
        readPublished(ledger.size() + 400);
        writer.stop(Duration.ofSeconds(30));
      }
      Ledger.Result result = awaitAll(ledger);
      assertNothingLostOrReordered(result);
      // At-least-once: what the killed leader published after its last position commit.
      assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo(400);
      b.process().terminate();
      assertThat(b.waitFor(Duration.ofSeconds(60))).as(b.log()).isZero();
      assertThat(b.log()).contains("gave up the lease (epoch 2)");
    }
  }

  @Test
  void aFrozenLeadersReplicationConnectionIsEndedByTheNewLeaderAndTheOldOnePublishesNothing()
      throws Exception {
    Path config = config();
    try (RelayProcess a = start("relay-a", config);
        RelayProcess b = start("relay-b", config)) {
      assertThat(a.log()).contains("] leader (epoch 1)");
      a.awaitReady();
      Ledger later = new Ledger(RelaySettings.topicPrefix(name)).semanticPayloads();
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        readPublished(400);
        String frozenHolder = slotHolder();
        assertThat(frozenHolder).isNotEqualTo("none");
        a.process().pause();
        long frozen = System.nanoTime();
        b.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(30));
        // The frozen leader's walsender would hold the slot for wal_sender_timeout (60 s): the
        // new leader ends it, and streams well before that.
        b.process()
            .awaitLogLine(
                ".* WARN .*replication slot "
                    + PostgresReplication.slotName(name)
                    + " was still held by process "
                    + frozenHolder
                    + ".*pg_terminate_backend.*",
                Duration.ofSeconds(30));
        b.awaitReady();
        long tookOver = (System.nanoTime() - frozen) / 1_000_000;
        LOG.info("{}: the standby streams {} ms after the leader froze", name, tookOver);
        assertThat(tookOver).as("well within wal_sender_timeout (60 s)").isLessThan(40_000);
        readPublished(ledger.size() + 400);

        a.process().resume();
        a.process().awaitLogLine(".*\\] lost the lease \\(epoch 1\\).*", Duration.ofSeconds(30));
        writer.stop(Duration.ofSeconds(30));
      }
      // Events written once the old leader is awake again come once: it does not publish them.
      try (SteadyWriter writer = SteadyWriter.start(db, later, "invoice", 200, 20, 1)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> later.size() >= 200);
        writer.stop(Duration.ofSeconds(30));
      }
      assertNothingLostOrReordered(awaitAll(ledger));
      Ledger.Result afterWake = awaitAll(later);
      assertNothingLostOrReordered(afterWake);
      assertThat(afterWake.duplicates()).as(afterWake.summary()).isZero();
      String awake = a.log().substring(a.log().indexOf("] lost the lease (epoch 1)"));
      int nextTerm = awake.indexOf("] leader (epoch");
      String standingBy = nextTerm < 0 ? awake : awake.substring(0, nextTerm);
      assertThat(standingBy).doesNotContain("ready: streaming inserts");
      assertThat(lease()).doesNotEndWith("#1");
      assertThat(b.process().isAlive()).as(b.log()).isTrue();
    }
  }
}
