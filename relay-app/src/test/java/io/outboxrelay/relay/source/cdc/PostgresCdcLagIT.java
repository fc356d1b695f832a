package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code outbox_relay_oldest_unpublished_age_seconds} of CDC relays on PostgreSQL: 0 on a leader
 * whose reader has read everything, small on a standby while the leader keeps up, and growing while
 * nobody publishes (the leader frozen) until the standby has taken over and caught up.
 */
class PostgresCdcLagIT {

  private static final Pattern AGE =
      Pattern.compile("(?m)^outbox_relay_oldest_unpublished_age_seconds\\S* ([0-9.eE+]+)$");

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private final List<RelayProcess> processes = new java.util.ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeEach
  void setUp() {
    db = PostgresCdcDatabases.selfServing(PostgresCdcDatabases.server());
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pglag");
  }

  @AfterEach
  void tearDown() {
    processes.forEach(RelayProcess::close);
    db.close();
  }

  private RelaySettings settings() {
    return RelaySettings.cdc(db, topics.bootstrap(), topics.name())
        .without("cdc.server.id")
        .with("cdc.heartbeat.interval", "500ms");
  }

  @Test
  void staysSmallWhileTheLeaderKeepsUpAndGrowsWhileNobodyPublishes() throws Exception {
    // The leader, a process of its own so that it can be frozen.
    RelayProcess leader =
        RelayProcess.start(
            "relay-a",
            dir,
            "run",
            "--config",
            settings().writeTo(dir.resolve("a.properties")).toString());
    try (leader) {
      leader.awaitReady();
      int port = FreePorts.findFreePort();
      RelayProcess standby =
          RelayProcess.start(
              "relay-b",
              dir,
              "run",
              "--config",
              settings()
                  .with("http.port", String.valueOf(port))
                  .writeTo(dir.resolve("b.properties"))
                  .toString());
      processes.add(standby);
      standby.process().awaitLogLine(".*\\] standby \\(holder.*", Duration.ofSeconds(90));
      Ledger ledger = topics.newLedger().semanticPayloads();
      RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-1", 1)));
      topics.readAll(ledger, Duration.ofSeconds(60));
      // The standby measures from the committed position, which heartbeats keep recent.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(age(port)).isNotNull().isLessThan(5.0));

      AtomicReference<Double> highest = new AtomicReference<>(0.0);
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 100, 10, 1)) {
        topics.readAtLeast(ledger.size(), Duration.ofSeconds(30));
        leader.process().pause(); // nobody publishes until the standby takes over
        await()
            .atMost(Duration.ofSeconds(40))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> {
                  Double a = age(port);
                  if (a != null && a > highest.get()) {
                    highest.set(a);
                  }
                  return highest.get() > 2.0;
                });
        writer.stop(Duration.ofSeconds(30));
      }
      Ledger.Result result = ledger.check(topics.readAll(ledger, Duration.ofSeconds(90)));
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      // The standby leads now and has published everything: once the writer stopped, its
      // committed position follows the heartbeats (every 500 ms, committed every 100 ms).
      await()
          .atMost(Duration.ofSeconds(40))
          .untilAsserted(() -> assertThat(age(port)).isNotNull().isLessThan(2.0));
      leader.process().resume();
    }
  }

  private Double age(int port) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    Matcher m = AGE.matcher(r.body());
    return m.find() ? Double.parseDouble(m.group(1)) : null;
  }
}
