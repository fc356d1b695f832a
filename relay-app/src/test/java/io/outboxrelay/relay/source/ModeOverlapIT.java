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
 * A CDC relay and a polling relay on one table publish every event twice. Until a guard prevents
 * it, each mode warns at start, in one WARN line, when it sees the other at work on the table.
 */
class ModeOverlapIT {

  @TempDir Path dir;

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private static void writeOne(OutboxDatabase db, String aggregateId) throws Exception {
    try (Connection c = db.app()) {
      OutboxWriter.writeTransaction(c, List.of(TestEvent.of("order", aggregateId, 1)));
    }
  }

  private static List<String> warnings(RelayProcess relay, String text) {
    return relay.log().lines().filter(l -> l.contains(" WARN ") && l.contains(text)).toList();
  }

  @Test
  void aCdcRelayWarnsWhenAPollingRelayIsPublishingFromTheSameTable() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path pollingConfig =
          RelaySettings.polling(db, bootstrap(), "overlap-poll")
              .writeTo(dir.resolve("polling.properties"));
      try (RelayProcess polling = RelayProcess.run("overlap-poll", dir, pollingConfig)) {
        assertThat(warnings(polling, "seems to")).as("no relay of the other mode yet").isEmpty();
        writeOne(db, "order-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db)));

        Path cdcConfig =
            RelaySettings.cdc(db, bootstrap(), "overlap-cdc")
                .writeTo(dir.resolve("cdc.properties"));
        try (RelayProcess cdc = RelayProcess.run("overlap-cdc", dir, cdcConfig)) {
          assertThat(warnings(cdc, "a polling relay seems to publish from"))
              .as(cdc.log())
              .singleElement()
              .asString()
              .contains(
                  "a polling relay seems to publish from "
                      + db.name()
                      + ".outbox_events: the newest published event was marked PUBLISHED")
              .contains("a CDC relay and a polling relay on one table publish every event twice");
          cdc.process().terminate();
          assertThat(cdc.waitFor(Duration.ofSeconds(60))).isZero();
        }
        polling.process().terminate();
        assertThat(polling.waitFor(Duration.ofSeconds(60))).isZero();
      }
    }
  }

  @Test
  void aPollingRelayWarnsWhenACdcRelayIsStreamingTheSameTable() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path cdcConfig =
          RelaySettings.cdc(db, bootstrap(), "overlap-both").writeTo(dir.resolve("cdc.properties"));
      try (RelayProcess cdc = RelayProcess.run("overlap-cdc", dir, cdcConfig)) {
        assertThat(warnings(cdc, "seems to")).as("no relay of the other mode yet").isEmpty();
        writeOne(db, "order-1");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_relay_offsets"))
                            .longValue()
                        > 0);

        // The same relay.name in polling mode: the mistake of running one file with --mode polling
        // while the CDC relay still runs.
        Path pollingConfig =
            RelaySettings.polling(db, bootstrap(), "overlap-both")
                .writeTo(dir.resolve("polling.properties"));
        try (RelayProcess polling = RelayProcess.run("overlap-poll", dir, pollingConfig)) {
          assertThat(warnings(polling, "a CDC relay seems to stream"))
              .as(polling.log())
              .singleElement()
              .asString()
              .contains(
                  "a CDC relay seems to stream "
                      + db.name()
                      + ".outbox_events: the binlog position of CDC relay 'overlap-both' (this"
                      + " relay.name) in "
                      + db.name()
                      + ".outbox_relay_offsets was written ")
              .contains("1 binlog reader(s) connected as user '" + db.relayUser() + "'")
              .contains("a CDC relay and a polling relay on one table publish every event twice");
          polling.process().terminate();
          assertThat(polling.waitFor(Duration.ofSeconds(60))).isZero();
        }
        cdc.process().terminate();
        assertThat(cdc.waitFor(Duration.ofSeconds(60))).isZero();
      }
    }
  }

  private static String status(OutboxDatabase db) {
    Object s = db.adminQuery("SELECT status FROM outbox_events ORDER BY id LIMIT 1");
    return s == null ? null : s.toString().trim();
  }
}
