package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.PostgresServer;
import io.outboxrelay.testsupport.stack.TcpProxy;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network between a streaming CDC relay and PostgreSQL lost, not the database: every connection
 * of the relay (replication, position store, leadership, Debezium's own) goes through a {@link
 * TcpProxy} that blackholes them (bytes dropped silently both ways, no reset, no close, new
 * connections accepted and never answered) for longer than the relay's timeouts and the server's
 * {@code wal_sender_timeout}, then forwards again. The application writes to the database directly
 * throughout. The relay must notice by its own timeouts, say once that the database is unreachable
 * and once that it is back, without a stack trace, stream again on its own, and publish every event
 * (by id, in per-aggregate order) with duplicates bounded as after a kill. A server of the class's
 * own, with a short {@code wal_sender_timeout}.
 */
class PostgresCdcNetworkFaultIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresCdcNetworkFaultIT.class);
  private static final Pattern OUTAGE_WARN =
      Pattern.compile("(?m)^\\S+ WARN .*source database .* unreachable since .*");
  private static final Pattern OUTAGE_INFO =
      Pattern.compile("(?m)^\\S+ INFO .*source database .* reachable again after an outage of");
  private static final Pattern STACK_FRAME =
      Pattern.compile("(?m)^(\\s+at [\\w.$]+\\(|Caused by: |\\s+\\.\\.\\. \\d+ more)");
  private static final int BATCH = 500;

  /** Rows in the table before a first start. */
  private static final int FIRST_START_ROWS = 5_000;

  /** The bound on every read of Debezium's connections, shortened from its 2 minutes. */
  private static final Duration DEBEZIUM_SOCKET_TIMEOUT = Duration.ofSeconds(10);

  /** The server ends a walsender that has not heard from its reader for this long. */
  private static final Duration WAL_SENDER_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The outage: longer than {@code wal_sender_timeout}, the leadership lease, and the longest
   * statement wait of the relay's connections (the position store's 30 s).
   */
  private static final Duration BLACKHOLE = Duration.ofSeconds(40);

  private static PostgresServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private TcpProxy proxy;
  private TestTopics topics;
  private Ledger ledger;

  @BeforeAll
  static void startOwnServer() {
    server =
        PostgresServer.builder()
            .setting("wal_sender_timeout", WAL_SENDER_TIMEOUT.toMillis() + "ms")
            .start();
  }

  @AfterAll
  static void closeOwnServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  @BeforeEach
  void setUp() {
    db = PostgresCdcDatabases.selfServing(server);
    proxy = TcpProxy.start(server.host(), server.port());
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgnet");
    ledger = topics.newLedger().semanticPayloads();
  }

  @AfterEach
  void tearDown() {
    proxy.close();
    db.close();
  }

  /** The relay reaches the database only through the proxy. */
  private Path config() {
    return config("skip");
  }

  private Path config(String firstStart) {
    return settings(firstStart).writeTo(dir.resolve("relay.properties"));
  }

  private RelaySettings settings(String firstStart) {
    return RelaySettings.cdc(db, topics.bootstrap(), topics.name())
        .without("cdc.server.id")
        .with("cdc.first.start", firstStart)
        .with("cdc.heartbeat.interval", "500ms")
        .with("cdc.batch.size", String.valueOf(BATCH))
        .with("source.host", proxy.host())
        .with("source.port", String.valueOf(proxy.port()))
        // Debezium's connections give up on a silent server after 10 s instead of 2 minutes,
        // so that the test sees the lost term's engine stop inside the outage.
        .with("debezium.driver.socketTimeout", String.valueOf(DEBEZIUM_SOCKET_TIMEOUT.toSeconds()));
  }

  private TopicReader reader() {
    return TopicReader.forPrefix(topics.bootstrap(), topics.prefix());
  }

  private void awaitPublished(int atLeast, Duration timeout) {
    List<ConsumedRecord> records = reader().readUntil(r -> r.size() >= atLeast, timeout);
    assertThat(records).as("records published").hasSizeGreaterThanOrEqualTo(atLeast);
  }

  @Test
  void publishesEveryEventWhenTheNetworkToPostgresIsBlackholedLongerThanEveryTimeout()
      throws Exception {
    Path config = config();
    Ledger.Result result;
    try (RelayRun relay = InProcessRun.run("relay", dir, config)) {
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        awaitPublished(400, Duration.ofSeconds(120));
        proxy.blackhole();
        long lostAt = System.nanoTime();
        LOG.info(
            "{}: network blackholed ({} connections open)", topics.name(), proxy.connections());
        Thread.sleep(BLACKHOLE.toMillis()); // the outage; the application goes on writing
        // The relay noticed by itself: the lease was lost, and the term's engine stopped though its
        // streaming thread waited on a silent connection (no reset, no close reached it).
        assertThat(relay.log()).as(relay.log()).contains("lost the lease (epoch 1)");
        assertThat(relay.log())
            .as("the lost term's engine stopped inside the outage: " + relay.log())
            .containsPattern("AsyncEmbeddedEngine - Stopped task #1 out of 1 tasks");
        proxy.restore();
        LOG.info("{}: network restored", topics.name());

        int writtenBefore = ledger.size();
        awaitPublished(writtenBefore + 400, Duration.ofSeconds(120)); // streaming again
        LOG.info(
            "{}: publishing the events written after the outage {} s after the network was lost",
            topics.name(),
            Duration.ofNanos(System.nanoTime() - lostAt).toSeconds());
        writer.stop(Duration.ofSeconds(60));
      }
      result = topics.check(ledger, Duration.ofSeconds(120));
      assertNoneLostOrOutOfOrder(result);
      // Published again: what Kafka acknowledged after the last position commit before the outage
      // (at most a batch, or a commit interval's events), as after a kill.
      assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo(2 * BATCH);
      assertOutageToldOnceWithoutStackTraces(relay);
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
  }

  /**
   * The network lost once a first start made its slot: its next statement (the snapshot's import,
   * then the reads of its rows) waits on a connection that no reset or close reaches. With a lease
   * longer than the term's socket timeout, the read gives up first: the relay ends inside the
   * outage with one ERROR, as a first start that fails does (without the bound it would wait in the
   * read until TCP gave up, never ready and never exiting). Started again once the network is back,
   * as a supervisor would, it begins the first start again: every row, and every event written
   * meanwhile, published in order.
   */
  @Test
  void aFirstStartCutOffByTheNetworkGivesUpInsideTheOutageAndStartsAgainWithoutLoss()
      throws Exception {
    List<TestEvent> transaction = new ArrayList<>();
    for (int i = 0; i < FIRST_START_ROWS; i++) {
      transaction.add(TestEvent.of("order", "pre-" + (i % 20), i / 20 + 1));
      if (transaction.size() == 1_000) {
        RawOutboxInserts.write(db, ledger, transaction);
        transaction = new ArrayList<>();
      }
    }
    Path config =
        settings("publish")
            .with("cdc.leader.lease", "60s")
            .with("cdc.leader.renew.interval", "2s")
            .writeTo(dir.resolve("relay.properties"));
    String failed = "the first start of relay.name '" + topics.name() + "' failed";
    String finished = "] first start of relay.name '" + topics.name() + "': published";
    try (Connection direct = server.connect(db.name());
        SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 100, 20, 1);
        RelayRun first = InProcessRun.start("relay-1", dir, "run", "--config", config.toString())) {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> slotIsConsistent(direct));
      proxy.blackhole();
      LOG.info("{}: network blackholed once the first start's slot was made", topics.name());
      int exit = first.waitFor(BLACKHOLE.minusSeconds(5));
      LOG.info("{}: the relay exited with {} inside the outage", topics.name(), exit);
      assertThat(exit).as(first.log()).isEqualTo(1);
      assertThat(first.log()).contains(failed).doesNotContain(finished);
      proxy.restore();
      LOG.info("{}: network restored", topics.name());
      try (RelayRun second = InProcessRun.run("relay-2", dir, config)) {
        assertThat(second.log()).contains(finished);
        assertThat(second.log())
            .containsPattern("dropped replication slot .* a first start that did not finish");
        Thread.sleep(3_000); // events the writer commits now: streamed, not snapshotted
        writer.stop(Duration.ofSeconds(60));
        assertNoneLostOrOutOfOrder(topics.check(ledger, Duration.ofSeconds(120)));
        second.terminate();
        assertThat(second.waitFor(Duration.ofSeconds(60))).as(second.log()).isZero();
      }
    }
  }

  /** Whether the test's database has a replication slot past its consistent point. */
  private boolean slotIsConsistent(Connection c) throws java.sql.SQLException {
    try (java.sql.PreparedStatement ps =
        c.prepareStatement(
            "SELECT count(*) FROM pg_replication_slots WHERE database = ? AND"
                + " confirmed_flush_lsn IS NOT NULL")) {
      ps.setString(1, db.name());
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  private static void assertNoneLostOrOutOfOrder(Ledger.Result result) {
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  private static void assertOutageToldOnceWithoutStackTraces(RelayRun relay) {
    await().atMost(Duration.ofSeconds(30)).until(() -> OUTAGE_INFO.matcher(relay.log()).find());
    String log = relay.log();
    log.lines()
        .filter(
            l ->
                l.contains("reachable")
                    || l.contains("replication")
                    || l.contains(" WARN ")
                    || l.contains(" ERROR "))
        .map(l -> l.length() > 400 ? l.substring(0, 400) + "..." : l)
        .forEach(l -> LOG.info("relay: {}", l));
    assertThat(OUTAGE_WARN.matcher(log).results().count()).as(log).isEqualTo(1);
    assertThat(OUTAGE_INFO.matcher(log).results().count()).as(log).isEqualTo(1);
    assertThat(STACK_FRAME.matcher(log).find()).as(log).isFalse();
  }
}
