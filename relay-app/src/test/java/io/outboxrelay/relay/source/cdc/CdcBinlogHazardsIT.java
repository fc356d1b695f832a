package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRuns;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator's database does to a running relay, with the real command line, MariaDB and
 * Kafka: statement-based binlog events, a purged binlog, a stored position of another table, a
 * restart inside a big transaction. Each ends in one line that says what to do, and no log line
 * carries a payload.
 */
class CdcBinlogHazardsIT {

  private static final AtomicInteger TESTS = new AtomicInteger();

  @TempDir Path dir;
  private final InProcessRuns relays = new InProcessRuns();

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private static String uniqueName(String prefix) {
    return prefix + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
  }

  private static TestEvent event(String aggregateId, long sequence, String payload) {
    return new TestEvent(
        UUID.randomUUID().toString(), "order", aggregateId, "Happened", sequence, payload);
  }

  private static void write(Connection c, Ledger ledger, TestEvent e) throws Exception {
    RawOutboxInserts.writeTransaction(c, List.of(e));
    if (ledger != null) {
      ledger.expect(e);
    }
  }

  private static List<ConsumedRecord> awaitPublished(String name, Ledger ledger) {
    TopicReader reader = TopicReader.forPrefix(bootstrap(), RelaySettings.topicPrefix(name));
    List<ConsumedRecord> records = reader.readUntil(ledger::allArrived, Duration.ofSeconds(90));
    assertThat(ledger.allArrived(records)).as("all events published").isTrue();
    return records;
  }

  private RelayRun runToExit(String logName, Path config, int expectedCode) {
    RelayRun relay = relays.run(logName, dir, config.toString());
    assertThat(relay.waitFor(Duration.ofSeconds(90))).as(relay.log()).isEqualTo(expectedCode);
    return relay;
  }

  private RelayRun run(String logName, Path config) {
    RelayRun relay = relays.run(logName, dir, config.toString());
    relay.awaitReady();
    return relay;
  }

  /** Stops every relay a test started: before its database is dropped, which they would block. */
  private void closeRelays() {
    relays.close();
  }

  private static void stop(RelayRun relay) {
    relay.terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  /** The way in docs/cdc.md to start a relay afresh: delete its row from the offsets table. */
  private static void deleteStoredPosition(OutboxDatabase db, String name) {
    db.admin(
        "DELETE FROM outbox_relay_offsets WHERE offset_key LIKE '%\"server\":\"" + name + "\"%'");
  }

  @Test
  void stopsAtAStatementBasedInsertIntoTheOutboxAndNeverLogsItsPayload() throws Exception {
    try (MariaDbServer server = MariaDbServer.builder().start();
        OutboxDatabase db = OutboxDatabase.on(server)) {
      db.admin("CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, note TEXT)");
      String name = uniqueName("stmt");
      Path config =
          RelaySettings.cdc(db, bootstrap(), name).writeTo(dir.resolve("stmt.properties"));
      Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
      String payloadMarker = "PAYLOAD-MARKER-" + UUID.randomUUID();
      String otherMarker = "OTHER-MARKER-" + UUID.randomUUID();
      RelayRun relay = run("stmt-1", config);
      try (Connection rowSession = db.app()) {
        write(rowSession, ledger, event("o-1", 1, "{\"n\":1}"));
        awaitPublished(name, ledger);

        // Sessions started from now on log statements; rowSession keeps ROW.
        server.execute(null, "SET GLOBAL binlog_format=STATEMENT");
        server.execute(db.name(), "INSERT INTO orders (note) VALUES ('" + otherMarker + "')");
        write(rowSession, ledger, event("o-1", 2, "{\"n\":2}"));
        awaitPublished(name, ledger); // another table's statement does not stop the relay
        TestEvent lost = event("o-1", 3, "{\"card\":\"" + payloadMarker + "\"}");
        try (Connection statementSession = db.app()) {
          write(statementSession, null, lost);
        }

        assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isEqualTo(1);
        assertThat(relay.log())
            .contains(
                "a statement-based binlog event changed " + db.name() + ".outbox_events (INSERT at")
            .containsPattern("\\(INSERT at mariadb-bin\\.\\d+:\\d+, GTID \\d+-\\d+-\\d+\\)")
            .contains("Set binlog_format=ROW")
            .contains("then recover with 'outbox-relay handoff --to polling'")
            .doesNotContain(payloadMarker)
            .doesNotContain(otherMarker);

        // Set back to ROW, a restart meets the same statement: its position was never passed.
        server.execute(null, "SET GLOBAL binlog_format=ROW");
        RelayRun again = runToExit("stmt-2", config, 1);
        assertThat(again.log())
            .contains("a statement-based binlog event changed " + db.name() + ".outbox_events")
            .doesNotContain(payloadMarker);

        // The recovery in docs/cdc.md: the row written as a statement goes by polling; CDC starts
        // afresh from the current position (skip: the rows already in the table stay unpublished).
        deleteStoredPosition(db, name);
        Path afresh =
            RelaySettings.cdc(db, bootstrap(), name)
                .with("cdc.first.start", "skip")
                .writeTo(dir.resolve("stmt-afresh.properties"));
        RelayRun fresh = run("stmt-3", afresh);
        try (Connection c = db.app()) {
          write(c, ledger, event("o-1", 4, "{\"n\":4}"));
        }
        List<ConsumedRecord> records = awaitPublished(name, ledger);
        assertThat(records).noneMatch(r -> lost.eventId().equals(r.header("id")));
        stop(fresh);
        assertThat(fresh.log()).doesNotContain(payloadMarker);
      } finally {
        server.execute(null, "SET GLOBAL binlog_format=ROW");
        closeRelays();
      }
    }
  }

  @Test
  void explainsTheRecoveryWhenTheStoredGtidPositionWasPurged() throws Exception {
    try (MariaDbServer server = MariaDbServer.builder().start();
        OutboxDatabase db = OutboxDatabase.on(server)) {
      String name = uniqueName("purged");
      Path config =
          RelaySettings.cdc(db, bootstrap(), name).writeTo(dir.resolve("purged.properties"));
      Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
      RelayRun relay = run("purged-1", config);
      try (Connection c = db.app()) {
        write(c, ledger, event("o-1", 1, "{\"n\":1}"));
        awaitPublished(name, ledger);
        stop(relay);
        assertThat((String) db.adminQuery("SELECT offset_val FROM outbox_relay_offsets"))
            .as("MariaDB positions are GTIDs")
            .containsPattern("\"gtids\":\"\\d+-\\d+-\\d+");

        // While the relay is down: more events, and the binlog holding them is purged.
        write(c, null, event("o-1", 2, "{\"n\":2}"));
        write(c, null, event("o-1", 3, "{\"n\":3}"));
        server.execute(null, "FLUSH BINARY LOGS");
        purgeOldBinlogs(server);

        RelayRun restarted = runToExit("purged-2", config, 1);
        assertThat(restarted.log())
            .contains(
                "the binlog position stored in outbox_relay_offsets for relay.name '"
                    + name
                    + "' can no longer be read from")
            .contains("events may have been missed")
            .contains("recover them with 'outbox-relay handoff --to polling'")
            .contains("then 'outbox-relay handoff --to cdc'")
            .contains("Could not find GTID state requested by slave in any binlog files");

        // The recovery in docs/cdc.md: after the rows went by polling, start afresh.
        deleteStoredPosition(db, name);
        RelayRun fresh = run("purged-3", config);
        write(c, ledger, event("o-1", 4, "{\"n\":4}"));
        awaitPublished(name, ledger);
        stop(fresh);
      } finally {
        closeRelays();
      }
    }
  }

  /**
   * Purges every binlog file but the current one. The server keeps a file a binlog reader still has
   * open, and the stopped relay's dump thread may take a moment to end: purge until it took.
   */
  private static void purgeOldBinlogs(MariaDbServer server) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              try (Connection c = server.adminConnection();
                  Statement st = c.createStatement()) {
                String current;
                try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
                  rs.next();
                  current = rs.getString("File");
                }
                st.execute("PURGE BINARY LOGS TO '" + current + "'");
                try (ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
                  rs.next();
                  return rs.getString(1).equals(current) && !rs.next();
                }
              }
            });
  }

  @Test
  void refusesAStoredPositionOfAnotherTableAndStartsAfreshAsTheReadmeSays() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(LocalStack.shared().mariaDb())) {
      db.admin(
          "CREATE TABLE outbox_events_v2 LIKE outbox_events",
          "GRANT SELECT ON "
              + db.name()
              + ".outbox_events_v2 TO '"
              + db.relayUser()
              + "'@'127.0.0.1'");
      String name = uniqueName("moved");
      Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
      Path first =
          RelaySettings.cdc(db, bootstrap(), name).writeTo(dir.resolve("first.properties"));
      RelayRun relay = run("moved-1", first);
      try (Connection c = db.app()) {
        write(c, ledger, event("o-1", 1, "{\"n\":1}"));
        awaitPublished(name, ledger);
        stop(relay);

        Path second =
            RelaySettings.cdc(db, bootstrap(), name)
                .with("source.table", "outbox_events_v2")
                .writeTo(dir.resolve("second.properties"));
        RelayRun refused = runToExit("moved-2", second, 2);
        assertThat(refused.log())
            .contains(
                "startup check failed: the position stored in outbox_relay_offsets for relay.name '"
                    + name
                    + "' belongs to "
                    + db.name()
                    + ".outbox_events, not to "
                    + db.name()
                    + ".outbox_events_v2")
            .contains("use a new relay.name")
            .doesNotContain("Exception");

        deleteStoredPosition(db, name);
        RelayRun fresh = run("moved-3", second);
        TestEvent e = event("o-2", 1, "{\"n\":2}");
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO outbox_events_v2 (event_id, aggregate_type, aggregate_id,"
                    + " event_type, payload) VALUES (?, ?, ?, ?, ?)")) {
          ps.setString(1, e.eventId());
          ps.setString(2, e.aggregateType());
          ps.setString(3, e.aggregateId());
          ps.setString(4, e.eventType());
          ps.setString(5, e.payload());
          ps.executeUpdate();
        }
        c.commit();
        ledger.expect(e);
        awaitPublished(name, ledger);
        stop(fresh);
      } finally {
        closeRelays();
      }
    }
  }

  @Test
  void restartsInsideABigTransactionWithAFewLogLinesAndPublishesTheRestOnce() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(LocalStack.shared().mariaDb());
        Admin admin =
            Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
      String name = uniqueName("bigtx");
      Path config =
          RelaySettings.cdc(db, bootstrap(), name)
              .with("cdc.batch.size", "100")
              .writeTo(dir.resolve("bigtx.properties"));
      Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
      // The broker slows this relay's producer (client.id = relay.name) down, so that it is
      // stopped in the middle of the transaction.
      quota(admin, name, 100_000.0);
      try {
        RelayRun relay = run("bigtx-1", config);
        try (Connection c = db.app();
            PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type,"
                        + " payload) VALUES (?, ?, ?, ?, ?)")) {
          List<TestEvent> events = new ArrayList<>();
          for (int i = 1; i <= 5_000; i++) {
            TestEvent e = TestEvent.of("order", "agg-" + (i % 20), (i + 19) / 20);
            ps.setString(1, e.eventId());
            ps.setString(2, e.aggregateType());
            ps.setString(3, e.aggregateId());
            ps.setString(4, e.eventType());
            ps.setString(5, e.payload());
            ps.executeUpdate(); // one statement, one row event, per row
            events.add(e);
          }
          c.commit();
          ledger.expect(events);
        }
        TopicReader.forPrefix(bootstrap(), RelaySettings.topicPrefix(name))
            .readUntil(records -> records.size() >= 1_000, Duration.ofSeconds(90));
        stop(relay);
        assertThat((String) db.adminQuery("SELECT offset_val FROM outbox_relay_offsets"))
            .as("stopped inside the transaction")
            .containsPattern("\"event\":[1-9]");
        quota(admin, name, null);

        RelayRun restarted = run("bigtx-2", config);
        List<ConsumedRecord> records = awaitPublished(name, ledger);
        Ledger.Result result = ledger.check(records);
        assertThat(result.lost()).as(result.summary()).isZero();
        assertThat(result.duplicates()).as(result.summary()).isZero();
        assertThat(result.outOfOrder()).as(result.summary()).isZero();
        assertThat(result.mismatches()).as(result.summary()).isEmpty();
        stop(restarted);

        String log = restarted.log();
        assertThat(log)
            .containsPattern(
                "resuming at mariadb-bin\\.\\d+:\\d+, GTIDs [-0-9]+: [1-9]\\d* binlog events of the"
                    + " transaction there, and \\d+ row\\(s\\) of the next, were published before"
                    + " the stop")
            .doesNotContain("Skipping");
        // More than a thousand row events were skipped; the whole run logs a few dozen lines.
        assertThat(log.lines().count()).as(log).isLessThan(300);
      } finally {
        closeRelays();
      }
    }
  }

  private static void quota(Admin admin, String clientId, Double producerByteRate)
      throws Exception {
    admin
        .alterClientQuotas(
            List.of(
                new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", producerByteRate)))))
        .all()
        .get();
  }
}
