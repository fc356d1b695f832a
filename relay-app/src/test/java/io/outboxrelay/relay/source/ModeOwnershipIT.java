package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CDC relay and a polling relay on one table publish every event twice: whichever starts second
 * refuses (exit 2), naming the relay at work and the hand-off command. A relay of the other mode on
 * another database, even under the same user, is no concern of it.
 */
class ModeOwnershipIT {

  @TempDir Path dir;

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private static void writeOne(OutboxDatabase db, String aggregateId) throws Exception {
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, List.of(TestEvent.of("order", aggregateId, 1)));
    }
  }

  private static List<String> warnings(RelayRun relay) {
    return relay.log().lines().filter(l -> l.contains(" WARN ")).toList();
  }

  private static void stop(RelayRun relay) {
    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  @Test
  void aCdcRelayRefusesToStartWhileAPollingRelayPublishesFromTheTable() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path pollingConfig =
          RelaySettings.polling(db, bootstrap(), "own-poll")
              .writeTo(dir.resolve("polling.properties"));
      try (RelayRun polling = InProcessRun.run("own-poll", dir, pollingConfig)) {
        writeOne(db, "order-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db)));

        Path cdcConfig =
            RelaySettings.cdc(db, bootstrap(), "own-cdc").writeTo(dir.resolve("cdc.properties"));
        try (RelayRun cdc =
            InProcessRun.start("own-cdc", dir, "run", "--config", cdcConfig.toString())) {
          assertThat(cdc.waitFor(Duration.ofSeconds(90))).as(cdc.log()).isEqualTo(2);
          assertThat(cdc.log())
              .contains(
                  "a polling relay publishes from "
                      + db.name()
                      + ".outbox_events (its newest event was marked PUBLISHED ")
              .contains("'outbox-relay handoff --to cdc'");
          assertThat(cdc.stackTraceLines()).as(cdc.log()).isEmpty();
        }
        assertThat(warnings(polling)).as(polling.log()).isEmpty();
        stop(polling);
      }
    }
  }

  /**
   * Regression: polling's last publish over two minutes old let a CDC relay start without a
   * hand-off, and the rows polling had left {@code PENDING} were never published (5 of 5 after a
   * 134 s gap). Now it refuses, naming what polling left and the hand-off; after {@code handoff
   * --to cdc} the relay publishes every event polling left, by id, in per-aggregate order.
   */
  @Test
  void aCdcRelayRefusesATablePollingServedLongAgoUntilItIsHandedToCdc() throws Exception {
    TestTopics topics = TestTopics.fresh(bootstrap(), "own-gap");
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      String user = "'" + db.relayUser() + "'@'127.0.0.1'";
      db.admin( // what the hand-off to CDC needs besides the CDC and polling grants
          "GRANT INSERT ON " + db.name() + ".outbox_events TO " + user,
          "GRANT INSERT, UPDATE ON " + db.name() + ".outbox_relay_handoffs TO " + user,
          "GRANT SELECT ON " + db.name() + ".outbox_relay_leases TO " + user,
          "GRANT LOCK TABLES ON " + db.name() + ".* TO " + user);
      Path config =
          RelaySettings.cdc(db, topics.bootstrap(), topics.name())
              .with("polling.interval", "50ms")
              .writeTo(dir.resolve("relay.properties"));
      Ledger ledger = topics.newLedger();
      List<TestEvent> polled = new ArrayList<>();
      for (int i = 1; i <= 5; i++) {
        polled.add(TestEvent.of("order", "gap-" + (i % 2), i));
      }
      try (RelayRun polling =
          InProcessRun.start(
              "gap-poll", dir, "run", "--config", config.toString(), "--mode", "polling")) {
        polling.awaitReady();
        try (Connection c = db.app()) {
          RawOutboxInserts.writeTransaction(c, polled);
        }
        ledger.expect(polled);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    ((Number)
                                db.adminQuery(
                                    "SELECT COUNT(*) FROM outbox_events WHERE status ="
                                        + " 'PUBLISHED'"))
                            .intValue()
                        == 5);
        stop(polling);
      }
      // The report's 134 s without a publish, without waiting for them.
      db.admin("UPDATE outbox_events SET published_at = published_at - INTERVAL 10 MINUTE");
      List<TestEvent> left = new ArrayList<>();
      for (int i = 6; i <= 8; i++) {
        left.add(TestEvent.of("order", "gap-" + (i % 2), i));
      }
      try (Connection c = db.app()) {
        RawOutboxInserts.writeTransaction(c, left);
      }
      ledger.expect(left);

      try (RelayRun cdc =
          InProcessRun.start("gap-cdc", dir, "run", "--config", config.toString())) {
        assertThat(cdc.waitFor(Duration.ofSeconds(90))).as(cdc.log()).isEqualTo(2);
        List<String> refusals =
            cdc.log().lines().filter(l -> l.contains("startup check failed")).toList();
        assertThat(refusals).as(cdc.log()).hasSize(1);
        // Ten minutes ago and a start's length: 600 s and more (a start under load took 35 s).
        assertThat(refusals.get(0))
            .containsPattern(
                java.util.regex.Pattern.quote(
                        "polling served "
                            + db.name()
                            + ".outbox_events (rows marked by polling: 5 PUBLISHED; the newest was"
                            + " marked PUBLISHED ")
                    + "(6\\d\\d|[7-9]\\d\\d) s ago")
            .contains("never handed to CDC")
            .contains("'outbox-relay handoff --to cdc'");
        assertThat(cdc.stackTraceLines()).as(cdc.log()).isEmpty();
      }

      Cli.expect(0, "handoff", "--config", config.toString(), "--to", "cdc");
      try (RelayRun cdc = InProcessRun.run("gap-cdc-2", dir, config)) {
        Ledger.Result result = topics.check(ledger, Duration.ofSeconds(60));
        assertThat(result.lost()).as(result.summary()).isZero();
        assertThat(result.duplicates()).as(result.summary()).isZero();
        assertThat(result.outOfOrder()).as(result.summary()).isZero();
        assertThat(result.mismatches()).as(result.summary()).isEmpty();
        stop(cdc);
      }
    }
  }

  @Test
  void aPollingRelayRefusesToStartWhileACdcRelayStreamsTheTable() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path cdcConfig =
          RelaySettings.cdc(db, bootstrap(), "own-both").writeTo(dir.resolve("cdc.properties"));
      try (RelayRun cdc = InProcessRun.run("own-cdc", dir, cdcConfig)) {
        writeOne(db, "order-1");
        // The same file with --mode polling: the mistake of switching without a hand-off. A child
        // process: one relay.name twice in one JVM would share its JMX metrics.
        try (RelayRun polling =
            RelayProcess.start(
                "own-poll", dir, "run", "--config", cdcConfig.toString(), "--mode", "polling")) {
          assertThat(polling.waitFor(Duration.ofSeconds(90))).as(polling.log()).isEqualTo(2);
          assertThat(polling.log())
              .contains("CDC relay own-both (own-both@")
              .contains(") holds the lease of " + db.name() + ".outbox_events and streams it")
              .contains("'outbox-relay handoff --to polling'");
        }
        assertThat(status(db)).as("polling claimed nothing").isEqualTo("PENDING");
        stop(cdc);
      }
    }
  }

  @Test
  void aPollingRelayIgnoresACdcRelayOfAnotherDatabaseUnderTheSameUser() throws Exception {
    try (OutboxDatabase cdcDb = OutboxDatabase.on(LocalStack.shared().mariaDb());
        OutboxDatabase pollingDb = OutboxDatabase.forPolling()) {
      Path cdcConfig =
          RelaySettings.cdc(cdcDb, bootstrap(), "own-a").writeTo(dir.resolve("cdc.properties"));
      // One relay user for both services: it may poll the second database too, with the polling
      // grants of config/mysql/relay-grants.sql.
      String user = "'" + cdcDb.relayUser() + "'@'127.0.0.1'";
      pollingDb.admin(
          "GRANT SELECT, UPDATE, DELETE ON " + pollingDb.name() + ".outbox_events TO " + user,
          "GRANT SELECT ON " + pollingDb.name() + ".outbox_relay_leases TO " + user,
          "GRANT SELECT ON " + pollingDb.name() + ".outbox_relay_handoffs TO " + user);
      Path pollingConfig =
          RelaySettings.polling(pollingDb, bootstrap(), "own-b")
              .with("source.user", cdcDb.relayUser())
              .with("source.password", cdcDb.password())
              .writeTo(dir.resolve("polling.properties"));
      try (RelayRun cdc = InProcessRun.run("own-a", dir, cdcConfig);
          RelayRun polling = InProcessRun.run("own-b", dir, pollingConfig)) {
        writeOne(pollingDb, "order-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(pollingDb)));
        assertThat(warnings(polling)).as(polling.log()).isEmpty();
        stop(polling);
        stop(cdc);
      }
    }
  }

  private static String status(OutboxDatabase db) {
    Object s = db.adminQuery("SELECT status FROM outbox_events ORDER BY id LIMIT 1");
    return s == null ? null : s.toString().trim();
  }
}
