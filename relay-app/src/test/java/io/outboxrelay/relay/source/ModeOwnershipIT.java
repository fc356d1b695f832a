package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.OutboxWriter;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
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
      OutboxWriter.writeTransaction(c, List.of(TestEvent.of("order", aggregateId, 1)));
    }
  }

  private static List<String> warnings(RelayProcess relay) {
    return relay.log().lines().filter(l -> l.contains(" WARN ")).toList();
  }

  private static void stop(RelayProcess relay) {
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  @Test
  void aCdcRelayRefusesToStartWhileAPollingRelayPublishesFromTheTable() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path pollingConfig =
          RelaySettings.polling(db, bootstrap(), "own-poll")
              .writeTo(dir.resolve("polling.properties"));
      try (RelayProcess polling = RelayProcess.run("own-poll", dir, pollingConfig)) {
        writeOne(db, "order-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db)));

        Path cdcConfig =
            RelaySettings.cdc(db, bootstrap(), "own-cdc").writeTo(dir.resolve("cdc.properties"));
        try (RelayProcess cdc =
            RelayProcess.start("own-cdc", dir, "run", "--config", cdcConfig.toString())) {
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

  @Test
  void aPollingRelayRefusesToStartWhileACdcRelayStreamsTheTable() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path cdcConfig =
          RelaySettings.cdc(db, bootstrap(), "own-both").writeTo(dir.resolve("cdc.properties"));
      try (RelayProcess cdc = RelayProcess.run("own-cdc", dir, cdcConfig)) {
        writeOne(db, "order-1");
        // The same file with --mode polling: the mistake of switching without a hand-off.
        try (RelayProcess polling =
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
      try (RelayProcess cdc = RelayProcess.run("own-a", dir, cdcConfig);
          RelayProcess polling = RelayProcess.run("own-b", dir, pollingConfig)) {
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
