package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay refuses to start, with exit code 2 and one line per problem saying what to change, when
 * the configuration or the database is not fit for CDC. Runs the real command line.
 */
class CdcStartupChecksIT {

  @TempDir Path dir;

  private static OutboxDatabase database(MariaDbServer server) {
    return OutboxDatabase.on(server);
  }

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private RelayRun runExpectingExit(String name, Path config, int expectedCode) {
    RelayRun relay = InProcessRun.start(name, dir, "run", "--config", config.toString());
    assertThat(relay.waitFor(Duration.ofSeconds(90))).as(relay.log()).isEqualTo(expectedCode);
    return relay;
  }

  @Test
  void refusesASourceWithoutBinlog() {
    try (MariaDbServer server = MariaDbServer.builder().binlog(false).start();
        OutboxDatabase db = database(server)) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "nobinlog")
              .writeTo(dir.resolve("nobinlog.properties"));

      RelayRun relay = runExpectingExit("nobinlog", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: the binary log is off on mariadb 127.0.0.1:" + server.port())
          .contains("set log_bin");
    }
  }

  @Test
  void listsEveryBinlogSettingThatIsWrong() {
    try (MariaDbServer server =
            MariaDbServer.builder().binlogFormat("STATEMENT").binlogRowImage("MINIMAL").start();
        OutboxDatabase db = database(server)) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "stmt").writeTo(dir.resolve("stmt.properties"));

      RelayRun relay = runExpectingExit("stmt", config, 2);

      assertThat(relay.log())
          .contains("startup check failed: binlog_format is STATEMENT")
          .contains("set binlog_format=ROW")
          .contains("startup check failed: binlog_row_image is MINIMAL")
          .contains("set binlog_row_image=FULL");
    }
  }

  @Test
  void refusesAUserWithoutReplicationGrants() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = database(server)) {
      server.execute(
          null, "REVOKE REPLICATION SLAVE ON *.* FROM '" + db.relayUser() + "'@'127.0.0.1'");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "grants").writeTo(dir.resolve("grants.properties"));

      RelayRun relay = runExpectingExit("grants", config, 2);

      assertThat(relay.log())
          .contains("startup check failed: user '" + db.relayUser() + "' lacks REPLICATION SLAVE");
    }
  }

  @Test
  void refusesAUserWhoMayNotUpdateTheLeaseTableNamingTheGrant() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = database(server)) {
      server.execute(
          null,
          "REVOKE UPDATE ON "
              + db.name()
              + ".outbox_relay_leases FROM '"
              + db.relayUser()
              + "'@'127.0.0.1'");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "leasegrant")
              .writeTo(dir.resolve("leasegrant.properties"));

      RelayRun relay = runExpectingExit("leasegrant", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: user '"
                  + db.relayUser()
                  + "' may not use "
                  + db.name()
                  + ".outbox_relay_leases: GRANT SELECT, INSERT, UPDATE ON "
                  + db.name()
                  + ".outbox_relay_leases TO '"
                  + db.relayUser()
                  + "'@'<host>'");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void refusesRetentionOnATableWithoutTheColumnsItDeletesBy() {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      db.admin("ALTER TABLE outbox_events DROP COLUMN created_at");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "noage")
              .with("cdc.retention", "1h")
              .writeTo(dir.resolve("noage.properties"));

      RelayRun relay = runExpectingExit("noage", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: cdc.retention deletes published rows by created_at, which "
                  + db.name()
                  + ".outbox_events lacks")
          .contains("or set cdc.retention=0");
    }
  }

  @Test
  void refusesAWrongPasswordWithOneLineAndNoStackTrace() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = database(server)) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "wrongpw")
              .with("source.password", "not-the-password")
              .writeTo(dir.resolve("wrongpw.properties"));

      RelayRun relay = runExpectingExit("wrongpw", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: mariadb 127.0.0.1:"
                  + server.port()
                  + "/"
                  + db.name()
                  + " refused user '"
                  + db.relayUser()
                  + "' (wrong password, or no such user for this host): check source.user and"
                  + " source.password")
          .doesNotContain("not-the-password");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void refusesAHostThatDoesNotResolve() throws Exception {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "nohost")
              .with("source.host", "db.invalid")
              .with("relay.resolve.timeout", "0s") // not waited for: HostResolutionIT waits
              .writeTo(dir.resolve("nohost.properties"));

      RelayRun relay = runExpectingExit("nohost", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: source.host 'db.invalid' does not resolve to an address");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void waitsWithOneWarningWhileTheDatabaseDoesNotAnswerAndStopsCleanlyOnSigterm() {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "dbdown")
              .with("source.port", String.valueOf(FreePorts.findFreePort()))
              .writeTo(dir.resolve("dbdown.properties"));

      // A child process: SIGTERM while the start waits, through the signal handler.
      try (RelayProcess relay =
          RelayProcess.start("dbdown", dir, "run", "--config", config.toString())) {
        relay.awaitLogLine(
            ".* WARN .*source database mariadb 127.0.0.1:\\d+/"
                + db.name()
                + " unreachable since .*the relay starts as soon as it accepts connections.*",
            Duration.ofSeconds(60));
        relay.terminate();
        assertThat(relay.waitFor(Duration.ofSeconds(30))).as(relay.log()).isZero();
        assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
        assertThat(relay.log()).doesNotContain(" ERROR ");
      }
    }
  }

  /**
   * A stored position whose binlog file the server no longer has stops the relay with one ERROR
   * line saying what to do: no Debezium error lines, no "unreachable" warning (the database
   * answers), no stack trace. The first relay stops only once its event is published, so the stored
   * position is a streaming one; the edit is checked, so the second relay cannot stream from a GTID
   * the edit left behind.
   */
  @Test
  void printsOneLineWithoutStackTraceWhenTheStoredPositionIsGone() throws Exception {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      String name = "gone" + Long.toHexString(System.nanoTime() & 0xffff);
      Path config =
          RelaySettings.cdc(db, bootstrap(), name).writeTo(dir.resolve("gone.properties"));
      try (RelayRun first = InProcessRun.run("gone-1", dir, config)) {
        TestEvent event = TestEvent.of("order", "o-1", 1);
        try (Connection c = db.app()) {
          RawOutboxInserts.writeTransaction(c, List.of(event));
        }
        TopicReader.forPrefix(bootstrap(), RelaySettings.topicPrefix(name))
            .readUntil(
                r -> r.stream().anyMatch(x -> event.eventId().equals(x.header("id"))),
                Duration.ofSeconds(60));
        first.terminate();
        assertThat(first.waitFor(Duration.ofSeconds(60))).isZero();
      }
      // A position in a binlog file the server no longer has, as after a purge, without GTIDs.
      ObjectMapper json = new ObjectMapper();
      ObjectNode position =
          (ObjectNode)
              json.readTree((String) db.adminQuery("SELECT offset_val FROM outbox_relay_offsets"));
      position.remove("gtids");
      position.put("file", "mariadb-bin.999999");
      db.admin(
          "UPDATE outbox_relay_offsets SET offset_val = '"
              + json.writeValueAsString(position)
              + "'");
      JsonNode stored =
          json.readTree((String) db.adminQuery("SELECT offset_val FROM outbox_relay_offsets"));
      assertThat(stored.has("gtids")).as(stored.toString()).isFalse();
      assertThat(stored.path("file").asText()).isEqualTo("mariadb-bin.999999");

      RelayRun relay = runExpectingExit("gone-2", config, 1);

      List<String> errors = relay.log().lines().filter(l -> l.contains(" ERROR ")).toList();
      assertThat(errors)
          .as(relay.log())
          .singleElement()
          .asString()
          .contains("can no longer be read from")
          .contains("'outbox-relay handoff --to polling'");
      assertThat(relay.log()).doesNotContain("unreachable");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void saysATableThatIsMissingMayBeMissingOrInvisibleRatherThanBlamingTheGrant() {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      // As when the table was never created: no grant could name it, and the server answers
      // "SELECT command denied" (1142), as it does for a table the user may not read.
      db.admin(
          "REVOKE SELECT ON outbox_events FROM '" + db.relayUser() + "'@'127.0.0.1'",
          "DROP TABLE outbox_events");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "notable").writeTo(dir.resolve("notable.properties"));

      RelayRun relay = runExpectingExit("notable", config, 2);

      assertThat(relay.log())
          .contains(
              "startup check failed: table "
                  + db.name()
                  + ".outbox_events does not exist or user '"
                  + db.relayUser()
                  + "' cannot see it: create it with config/mysql/outbox-schema.sql, or GRANT"
                  + " SELECT ON "
                  + db.name()
                  + ".outbox_events");
    }
  }

  @Test
  void refusesOutboxColumnsOfATypeTheRelayCannotRead() {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      db.admin(
          "ALTER TABLE outbox_events MODIFY aggregate_id INT NOT NULL,"
              + " MODIFY payload BLOB NOT NULL");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "coltypes").writeTo(dir.resolve("types.properties"));

      RelayRun relay = runExpectingExit("coltypes", config, 2);

      String table = db.name() + ".outbox_events";
      assertThat(relay.log())
          .contains(
              "startup check failed: column "
                  + table
                  + ".aggregate_id is int(11), which is not text: make it VARCHAR(255) as in"
                  + " config/mysql/outbox-schema.sql")
          .contains(
              "startup check failed: column "
                  + table
                  + ".payload is blob, which is not text: make it JSON or LONGTEXT")
          .doesNotContain("column " + table + ".event_id")
          .doesNotContain("column " + table + ".aggregate_type");
    }
  }

  @Test
  void listsEveryConfigurationProblemAtOnce() throws Exception {
    Path config = dir.resolve("bad.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "source.host=127.0.0.1",
            "source.port=not-a-port",
            "source.pasword=typo",
            "cdc.batch.size=0",
            "kafka.producer.acks=1",
            "kafka.producer.enable.idempotence=false",
            ""));

    RelayRun relay = runExpectingExit("badconfig", config, 2);

    assertThat(relay.log())
        .contains("Invalid configuration in " + config + " (9 problems):")
        .contains("  - source.port: 'not-a-port' is not an integer")
        .contains("  - unknown key source.pasword: did you mean source.password?")
        .contains("  - cdc.batch.size: must be between 1 and 65536, got 0")
        .contains(
            "  - kafka.producer.acks=1 lets Kafka acknowledge events a broker failure can lose")
        .contains("  - kafka.producer.enable.idempotence=false allows duplicates")
        .contains("  - source.database is required")
        .contains("  - source.user is required")
        .contains("  - kafka.bootstrap.servers is required")
        .contains("  - cdc.server.id is required in cdc mode");
  }

  @Test
  void refusesRetentionOnAFirstStartOverRowsNobodyPublished() {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      // As a polling relay leaves them: PENDING rows that a fresh CDC relay does not publish and
      // retention would delete.
      db.admin(
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
              + " VALUES (UUID(), 'order', 'o-1', 'Happened', '{}')");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "retfresh")
              .with("cdc.retention", "1h")
              .with("cdc.first.start", "skip")
              .writeTo(dir.resolve("retfresh.properties"));

      RelayRun relay = runExpectingExit("retfresh", config, 2);

      assertThat(relay.log())
          .contains("cdc.retention is set and relay.name 'retfresh' starts fresh on")
          .contains("which already holds 1 PENDING row(s)")
          .contains("handoff --to cdc");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void aHealthyFirstStartThatCreatesItsOwnTablesLogsNoWarning() throws Exception {
    try (OutboxDatabase db = database(LocalStack.shared().mariaDb())) {
      // config/mysql/relay-storage.sql not run: the relay creates its tables on the first start.
      db.admin(
          "DROP TABLE outbox_relay_offsets, outbox_relay_schema_history, outbox_relay_leases",
          "GRANT CREATE ON " + db.name() + ".* TO '" + db.relayUser() + "'@'127.0.0.1'");
      Path config =
          RelaySettings.cdc(db, bootstrap(), "clean").writeTo(dir.resolve("clean.properties"));

      try (RelayRun relay = InProcessRun.run("clean", dir, config)) {
        try (Connection c = db.app()) {
          RawOutboxInserts.writeTransaction(c, List.of(TestEvent.of("order", "o-1", 1)));
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> db.adminQuery("SELECT offset_val FROM outbox_relay_offsets") != null);
        relay.terminate();
        assertThat(relay.waitFor(Duration.ofSeconds(60))).isZero();

        // An operator learns to ignore warnings that are not problems: a healthy start has none.
        assertThat(relay.log().lines().filter(l -> l.matches("\\S+ (WARN|ERROR) .*")))
            .as(relay.log())
            .isEmpty();
      }
    }
  }

  @Test
  void neverPrintsThePasswordAndShowsTheEffectiveConfiguration() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = database(server)) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "secrets")
              .with("kafka.producer.ssl.truststore.password", "truststore-secret-42")
              .writeTo(dir.resolve("secrets.properties"));

      RelayRun relay = InProcessRun.run("secrets", dir, config);
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).isZero();

      assertThat(relay.log())
          .contains("source.password = [hidden]")
          .contains("kafka.producer.ssl.truststore.password = [hidden]")
          .contains("kafka.producer.acks = all")
          .doesNotContain(db.password())
          .doesNotContain("truststore-secret-42");
    }
  }

  @Test
  void namesTheKeyAndTheColumnOfEveryMappedColumnTheTableLacks() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = database(server)) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "mapping")
              .with("source.column.aggregate.type", "aggregatetype")
              .with("source.column.headers", "app_headers")
              .with("source.column.additional.placement", "timestamp:header:eventTimestamp")
              .writeTo(dir.resolve("mapping.properties"));

      RelayRun relay = runExpectingExit("mapping", config, 2);

      String table = db.name() + ".outbox_events";
      assertThat(relay.log())
          .contains(
              "startup check failed: table "
                  + table
                  + " has no column aggregatetype (source.column.aggregate.type, the aggregate"
                  + " type): create it as in config/mysql/outbox-schema.sql, or set"
                  + " source.column.aggregate.type to the column that holds the aggregate type")
          .contains(
              "startup check failed: table "
                  + table
                  + " has no column app_headers (source.column.headers, the application headers)")
          .contains(
              "startup check failed: table "
                  + table
                  + " has no column timestamp (source.column.additional.placement, a header)")
          .doesNotContain("no column aggregate_version");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }
}
