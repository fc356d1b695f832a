package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.PostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CDC on PostgreSQL refuses to start, exit code 2 and one line per problem saying what to change,
 * when the server or the relay user is not fit for it; and starts on what an operator set up by
 * hand, creating nothing but its slot. Runs the real command line for the refusals.
 */
class PostgresCdcStartupChecksIT {

  @TempDir Path dir;

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private static RelaySettings settings(OutboxDatabase db, String name) {
    return RelaySettings.cdc(db, bootstrap(), name)
        .without("cdc.server.id")
        .with("cdc.first.start", "skip");
  }

  private RelayRun runExpectingExit(String name, Path config, int expectedCode) {
    RelayRun relay = InProcessRun.start(name, dir, "run", "--config", config.toString());
    assertThat(relay.waitFor(Duration.ofSeconds(90))).as(relay.log()).isEqualTo(expectedCode);
    return relay;
  }

  @Test
  void listsEveryMissingSettingAndGrantOnOneLineEachAndExitsWithTwo() {
    try (PostgresServer server =
            PostgresServer.builder()
                .setting("wal_level", "replica")
                .setting("max_replication_slots", "0")
                .setting("max_wal_senders", "0")
                .start();
        OutboxDatabase db = OutboxDatabase.on(server)) {
      // The operator's tables, but the relay may not insert its position; no REPLICATION; no
      // publication, which the relay (not the table's owner) may not create.
      db.admin(
          io.outboxrelay.testsupport.stack.ProjectFiles.sqlStatements(
                  "config/postgresql/relay-storage.sql")
              .toArray(String[]::new));
      db.admin(
          "GRANT SELECT, DELETE ON outbox_relay_offsets TO " + db.relayUser(),
          "GRANT SELECT, INSERT, UPDATE ON outbox_relay_leases TO " + db.relayUser());
      Path config = settings(db, "pgchecks").writeTo(dir.resolve("pgchecks.properties"));

      RelayRun relay = runExpectingExit("pgchecks", config, 2);

      String log = relay.log();
      String publication = PostgresReplication.publicationName("pgchecks");
      assertThat(log)
          .contains(
              "startup check failed: wal_level is replica on postgresql 127.0.0.1:"
                  + server.port()
                  + "/"
                  + db.name()
                  + ": set wal_level=logical")
          .contains(
              "startup check failed: user '"
                  + db.relayUser()
                  + "' may not stream changes: ALTER ROLE "
                  + db.relayUser()
                  + " REPLICATION")
          .contains(
              "startup check failed: no free replication slot for outbox_relay_pgchecks: 0 of"
                  + " max_replication_slots=0 are taken; raise max_replication_slots")
          .contains("startup check failed: no free WAL sender on postgresql 127.0.0.1:")
          .contains("0 of max_wal_senders=0 are busy; raise max_wal_senders")
          .contains(
              "startup check failed: publication "
                  + publication
                  + " does not exist and user '"
                  + db.relayUser()
                  + "' may not create it")
          .contains(
              "run CREATE PUBLICATION "
                  + publication
                  + " FOR TABLE public.outbox_events WITH (publish = 'insert') as the table's"
                  + " owner")
          .contains(
              "startup check failed: user '"
                  + db.relayUser()
                  + "' may not use table outbox_relay_offsets: GRANT INSERT ON"
                  + " outbox_relay_offsets TO "
                  + db.relayUser());
      assertThat(log.lines().filter(l -> l.contains("startup check failed: ")).count())
          .as(log)
          .isEqualTo(6);
      assertThat(relay.stackTraceLines()).isEmpty();
    }
  }

  @Test
  void refusesAPublicationThatDoesNotCoverTheOutboxTable() {
    PostgresServer server = PostgresCdcDatabases.server();
    try (OutboxDatabase db = PostgresCdcDatabases.operatorMade(server, "pgpub")) {
      String publication = PostgresReplication.publicationName("pgpub");
      db.admin(
          "CREATE TABLE other_table (id int PRIMARY KEY)",
          "ALTER PUBLICATION " + publication + " SET TABLE other_table");
      Path config = settings(db, "pgpub").writeTo(dir.resolve("pgpub.properties"));

      RelayRun relay = runExpectingExit("pgpub", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: publication "
                  + publication
                  + " does not cover public.outbox_events: ALTER PUBLICATION "
                  + publication
                  + " ADD TABLE public.outbox_events");
    }
  }

  @Test
  void streamsFromWhatAnOperatorMadeAndCreatesNothingButItsSlot() throws Exception {
    PostgresServer server = PostgresCdcDatabases.server();
    TestTopics topics = TestTopics.fresh(bootstrap(), "pgop", "operator", 5);
    try (OutboxDatabase db = PostgresCdcDatabases.operatorMade(server, topics.name());
        InProcessRelays relays = new InProcessRelays()) {
      relays.start(settings(db, topics.name()));
      Ledger ledger = new Ledger(topics.prefix()).semanticPayloads();
      for (int i = 1; i <= 10; i++) {
        RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-" + (i % 3), i)));
      }

      Ledger.Result result = ledger.check(topics.readAll(ledger, Duration.ofSeconds(60)));

      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      assertThat(
              db.adminQuery(
                  "SELECT pg_get_userbyid(pubowner) FROM pg_publication WHERE pubname = '"
                      + PostgresReplication.publicationName(topics.name())
                      + "'"))
          .isEqualTo("postgres");
      assertThat(
              db.adminQuery(
                  "SELECT plugin FROM pg_replication_slots WHERE slot_name = '"
                      + PostgresReplication.slotName(topics.name())
                      + "'"))
          .isEqualTo("pgoutput");
    }
  }

  /** An outbox row an hour old, as a polling relay leaves it: retention would delete it at once. */
  private static String hourOldRow(String status) {
    return "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
        + " created_at, status) VALUES (gen_random_uuid(), 'order', 'o-1', 'Happened', '{}',"
        + " clock_timestamp() - interval '1 hour', '"
        + status
        + "')";
  }

  private static RelaySettings retentionSettings(OutboxDatabase db, String name) {
    return settings(db, name)
        .with("cdc.retention", "1s")
        .with("cdc.retention.interval", "1s")
        .with("cdc.heartbeat.interval", "500ms");
  }

  @Test
  void refusesRetentionWithFirstStartSkipOverPendingRowsAndDeletesNone() {
    PostgresServer server = PostgresCdcDatabases.server();
    String name = "pgretskip" + Long.toHexString(System.nanoTime() & 0xffff);
    try (OutboxDatabase db = PostgresCdcDatabases.selfServing(server)) {
      // PENDING rows no relay polled (rows polling marked would be refused as polling's table).
      db.admin(hourOldRow("PENDING"), hourOldRow("PENDING"));
      Path config = retentionSettings(db, name).writeTo(dir.resolve(name + ".properties"));

      RelayRun relay = runExpectingExit(name, config, 2);

      String log = relay.log();
      assertThat(log)
          .contains(
              "startup check failed: cdc.retention is set and relay.name '"
                  + name
                  + "' starts fresh on outbox_events, which already holds 2 PENDING row(s):"
                  + " with cdc.first.start=skip CDC does not publish them")
          .contains("handoff --to cdc");
      assertThat(log.lines().filter(l -> l.contains("startup check failed: ")).count())
          .as(log)
          .isEqualTo(1);
      assertThat(relay.stackTraceLines()).as(log).isEmpty();
      assertThat(db.adminQuery("SELECT count(*) FROM outbox_events")).as("rows").isEqualTo(2L);
      assertThat(
              db.adminQuery(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                      + PostgresReplication.slotName(name)
                      + "'"))
          .as("slots made")
          .isEqualTo(0L);
    }
  }

  @Test
  void startsWithRetentionAndFirstStartSkipOnATableWithoutPendingRows() throws Exception {
    PostgresServer server = PostgresCdcDatabases.server();
    TestTopics topics = TestTopics.fresh(bootstrap(), "pgretok");
    try (OutboxDatabase db = PostgresCdcDatabases.selfServing(server)) {
      // No PENDING row (rows polling marked would be refused by the ownership check instead).
      Path config = retentionSettings(db, topics.name()).writeTo(dir.resolve("pgretok.properties"));
      Ledger ledger = topics.newLedger().semanticPayloads();

      try (RelayRun relay = InProcessRun.run("pgretok", dir, config)) {
        RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-2", 1)));
        Ledger.Result result = ledger.check(topics.readAll(ledger, Duration.ofSeconds(60)));

        assertThat(result.lost()).as(result.summary()).isZero();
        assertThat(result.duplicates()).as(result.summary()).isZero();
        assertThat(result.mismatches()).as(result.summary()).isEmpty();
        assertThat(relay.log()).doesNotContain("startup check failed");
        relay.terminate();
        assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
      }
    }
  }
}
