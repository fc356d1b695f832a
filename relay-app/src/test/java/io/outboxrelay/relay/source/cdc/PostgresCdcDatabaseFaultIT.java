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
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
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
 * PostgreSQL restarted under a streaming CDC relay, with real processes: the postmaster killed
 * (SIGKILL, crash recovery at the next start) or stopped cleanly (fast shutdown, SIGINT), and
 * started again on the same port and data directory while an application keeps writing. The relay
 * must reconnect by itself, publish every event (checked by id and per-aggregate order), say once
 * that the database is unreachable and once that it is back, without a stack trace, and keep its
 * position. A server of the class's own: the shared one must never fail.
 */
class PostgresCdcDatabaseFaultIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresCdcDatabaseFaultIT.class);
  private static final Pattern OUTAGE_WARN =
      Pattern.compile("(?m)^\\S+ WARN .*source database .* unreachable since .*");
  private static final Pattern OUTAGE_INFO =
      Pattern.compile("(?m)^\\S+ INFO .*source database .* reachable again after an outage of");
  private static final Pattern STACK_FRAME =
      Pattern.compile("(?m)^(\\s+at [\\w.$]+\\(|Caused by: |\\s+\\.\\.\\. \\d+ more)");

  private static PostgresServer server;

  @TempDir Path dir;
  private OutboxDatabase db;
  private String name;
  private String bootstrap;
  private Ledger ledger;

  @BeforeAll
  static void startOwnServer() {
    server = PostgresServer.builder().start();
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
    server.start(); // a failed test may have left it stopped
    db = PostgresCdcDatabases.selfServing(server);
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgdb");
    name = topics.name();
    bootstrap = topics.bootstrap();
    ledger = topics.newLedger().semanticPayloads();
  }

  @AfterEach
  void tearDown() {
    if (server.isRunning()) {
      server.process().resume();
    } else {
      server.start();
    }
    db.close();
  }

  private Path config() {
    return RelaySettings.cdc(db, bootstrap, name)
        .without("cdc.server.id")
        .with("cdc.heartbeat.interval", "500ms")
        .writeTo(dir.resolve("relay.properties"));
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

  private static void assertNothingLostOrReordered(Ledger.Result result) {
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  @Test
  void publishesEveryEventAndKeepsItsPositionWhenPostgresIsKilledAndRestarted() throws Exception {
    restartUnderTheRelay(true);
  }

  @Test
  void publishesEveryEventWhenPostgresIsStoppedCleanlyAndRestarted() throws Exception {
    restartUnderTheRelay(false);
  }

  private void restartUnderTheRelay(boolean crash) throws Exception {
    Path config = config();
    Ledger.Result result;
    try (RelayRun relay = InProcessRun.run("relay", dir, config)) {
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        awaitPublished(400);
        if (crash) {
          server.kill();
        } else {
          server.fastShutdown();
        }
        LOG.info("{}: postgres {}", name, crash ? "killed" : "stopped (fast shutdown)");
        Thread.sleep(5_000); // the outage; the application keeps trying to write
        server.start();
        LOG.info("{}: postgres accepts connections again", name);

        int writtenBefore = ledger.size();
        awaitPublished(writtenBefore + 400); // events written after the restart: it recovered
        writer.stop(Duration.ofSeconds(60));
      }
      result = awaitAll();
      assertNothingLostOrReordered(result);
      assertOutageToldOnceWithoutStackTraces(relay);
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
    // The position survived the restart: a new relay publishes only what is new.
    try (RelayRun restarted = InProcessRun.run("relay-2", dir, config)) {
      TestEvent after = TestEvent.of("order", "after-restart", 1);
      try (Connection c = db.app()) {
        RawOutboxInserts.writeTransaction(c, List.of(after));
      }
      ledger.expect(after);
      Ledger.Result again = awaitAll();
      assertNothingLostOrReordered(again);
      assertThat(again.duplicates()).as(again.summary()).isEqualTo(result.duplicates());
      restarted.terminate();
      assertThat(restarted.waitFor(Duration.ofSeconds(60))).isZero();
    }
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
