package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.localstack.LocalStack;
import io.outboxrelay.localstack.MariaDbServer;
import io.outboxrelay.relay.testing.OutboxDatabase;
import io.outboxrelay.relay.testing.RelayProcess;
import io.outboxrelay.relay.testing.RelaySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

  private RelayProcess runExpectingExit(String name, Path config, int expectedCode) {
    RelayProcess relay = RelayProcess.start(name, dir, "run", "--config", config.toString());
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

      RelayProcess relay = runExpectingExit("nobinlog", config, 2);

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

      RelayProcess relay = runExpectingExit("stmt", config, 2);

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

      RelayProcess relay = runExpectingExit("grants", config, 2);

      assertThat(relay.log())
          .contains("startup check failed: user '" + db.relayUser() + "' lacks REPLICATION SLAVE");
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

    RelayProcess relay = runExpectingExit("badconfig", config, 2);

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
  void neverPrintsThePasswordAndShowsTheEffectiveConfiguration() {
    MariaDbServer server = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = database(server)) {
      Path config =
          RelaySettings.cdc(db, bootstrap(), "secrets")
              .with("kafka.producer.ssl.truststore.password", "truststore-secret-42")
              .writeTo(dir.resolve("secrets.properties"));

      RelayProcess relay = RelayProcess.run("secrets", dir, config);
      relay.process().terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).isZero();

      assertThat(relay.log())
          .contains("source.password = [hidden]")
          .contains("kafka.producer.ssl.truststore.password = [hidden]")
          .contains("kafka.producer.acks = all")
          .doesNotContain(db.password())
          .doesNotContain("truststore-secret-42");
    }
  }
}
