package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status} and {@code position show} in CDC mode say who publishes: the lease's holder with
 * its host and process id, its epoch and expiry by the database clock, and the relay user's
 * sessions, the leader's binlog reader among them; in text and in JSON.
 */
class LeadershipStatusIT {

  private static final Pattern HOLDER = Pattern.compile("holder=(\\S+@[^:\\s]+:(\\d+)-[0-9a-f]+)");

  @TempDir Path dir;

  @Test
  void statusNamesTheLeaderItsEpochAndExpiryAndTheRelaySessions() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(LocalStack.shared().mariaDb())) {
      String name = "lead" + Long.toHexString(System.nanoTime() & 0xffff);
      String config =
          RelaySettings.cdc(db, LocalStack.shared().kafka().bootstrapServers(), name)
              .writeTo(dir.resolve("relay.properties"))
              .toString();
      int standbyHttp = io.outboxrelay.testsupport.stack.FreePorts.findFreePort();
      String standbyConfig =
          RelaySettings.cdc(db, LocalStack.shared().kafka().bootstrapServers(), name)
              .with("http.port", String.valueOf(standbyHttp))
              .writeTo(dir.resolve("standby.properties"))
              .toString();
      String holder;
      String pid;
      try (RelayProcess leader = RelayProcess.run("leader", dir, Path.of(config));
          RelayProcess standby =
              RelayProcess.start("standby", dir, "run", "--config", standbyConfig)) {
        standby.process().awaitLogLine(".*\\] standby \\(holder .*", Duration.ofSeconds(90));
        // A standby exports the lag figures too, from the leader's committed position.
        try (java.sql.Connection c = db.app()) {
          io.outboxrelay.testsupport.outbox.RawOutboxInserts.writeTransaction(
              c,
              java.util.List.of(io.outboxrelay.testsupport.outbox.TestEvent.of("order", "o", 1)));
        }
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    metrics(standbyHttp).contains("outbox_relay_binlog_behind_bytes ")
                        && metrics(standbyHttp)
                            .contains("outbox_relay_oldest_unpublished_age_seconds "));
        assertThat(metrics(standbyHttp)).contains("outbox_relay_dead_events{event_type=\"\"} 0.0");
        Matcher m = HOLDER.matcher(leader.log());
        assertThat(m.find()).as(leader.log()).isTrue();
        holder = m.group(1);
        pid = m.group(2);

        JsonNode json =
            new ObjectMapper()
                .readTree(Cli.expect(0, "status", "--config", config, "--json").out());
        JsonNode lead = json.path("leader");
        assertThat(lead.path("holder").asText()).isEqualTo(holder);
        assertThat(lead.path("pid").asText()).isEqualTo(pid);
        assertThat(lead.path("relay_name").asText()).isEqualTo(name);
        assertThat(lead.path("epoch").asLong()).isEqualTo(1);
        assertThat(lead.path("live").asBoolean()).isTrue();
        assertThat(lead.path("expires_in_seconds").asDouble()).isBetween(0.0, 6.0);
        assertThat(json.path("sessions").toString()).contains("\"binlog_reader\":true");
        assertThat(json.path("handoff").isNull()).isTrue();

        String text = Cli.expect(0, "position", "show", "--config", config).out();
        assertThat(text)
            .contains("leader:")
            .contains(holder + " on host ")
            .contains(", pid " + pid + " (relay.name " + name + "), epoch 1")
            .contains("expires in ")
            .contains("reading the binlog: the leader")
            .contains("hand-off:")
            .contains("none recorded");
        leader.process().terminate();
        assertThat(leader.waitFor(Duration.ofSeconds(60))).isZero();
        standby.process().awaitLogLine(".*\\] ready: .*", Duration.ofSeconds(90));

        JsonNode after =
            new ObjectMapper()
                .readTree(Cli.expect(0, "status", "--config", config, "--json").out());
        assertThat(after.path("leader").path("holder").asText())
            .as("the standby took over")
            .isNotEqualTo(holder);
        assertThat(after.path("leader").path("epoch").asLong()).isEqualTo(2);
        standby.process().terminate();
        assertThat(standby.waitFor(Duration.ofSeconds(60))).isZero();
      }
      String stopped = Cli.expect(0, "status", "--config", config).out();
      assertThat(stopped).contains("last leader:").contains("no relay publishes");
    }
  }

  @Test
  void statusOfARelayThatNeverRanSaysItsOffsetsTableDoesNotExistYet() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(LocalStack.shared().mariaDb())) {
      // A database set up for the relay (outbox table, grants) on which no relay started yet.
      db.admin(
          "DROP TABLE IF EXISTS outbox_relay_offsets, outbox_relay_schema_history,"
              + " outbox_relay_leases");
      String name = "never" + Long.toHexString(System.nanoTime() & 0xffff);
      String config =
          RelaySettings.cdc(db, LocalStack.shared().kafka().bootstrapServers(), name)
              .writeTo(dir.resolve("never.properties"))
              .toString();

      // Regression: exit 2, "status needs SELECT ... on the offsets table": a grant, it said.
      String text = Cli.expect(0, "status", "--config", config).out();
      assertThat(text)
          .contains(
              "offsets table outbox_relay_offsets does not exist yet: relay "
                  + name
                  + " has not started on this database (it creates the table at its first start)")
          .containsPattern("stored position: +none")
          .containsPattern("server position: +\\S")
          .doesNotContain("needs");

      JsonNode json =
          new ObjectMapper().readTree(Cli.expect(0, "status", "--config", config, "--json").out());
      assertThat(json.path("offsets_table_exists").asBoolean(true)).isFalse();
      assertThat(json.path("position").isNull()).isTrue();
      assertThat(json.path("server_position").path("file").asText()).isNotEmpty();
    }
  }

  private static String metrics(int port) throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
