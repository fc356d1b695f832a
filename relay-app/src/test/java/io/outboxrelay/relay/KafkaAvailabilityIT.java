package io.outboxrelay.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay, as a process, when Kafka cannot be reached: bootstrap servers that do not resolve, a
 * Kafka that does not answer at start, and what the relay logs during an outage in CDC mode (the
 * polling outage is part of the polling contract).
 */
class KafkaAvailabilityIT {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaAvailabilityIT.class);
  private static final AtomicInteger TESTS = new AtomicInteger();

  @TempDir Path dir;
  private OutboxDatabase db;
  private String name;
  private RelayRun relay;

  @BeforeEach
  void setUp() {
    db = OutboxDatabase.forPolling();
    name = "kafka" + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
  }

  @AfterEach
  void tearDown() {
    if (relay != null) {
      relay.close();
    }
    db.close();
  }

  private RelayRun start(String label, RelaySettings settings) {
    Path config = settings.writeTo(dir.resolve(label + ".properties"));
    relay = InProcessRun.start(label, dir, "run", "--config", config.toString());
    return relay;
  }

  private void write(Ledger ledger, TestEvent... events) throws Exception {
    try (Connection c = db.app()) {
      for (TestEvent e : events) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
        ledger.expect(e);
      }
    }
  }

  /** Waits for the relay to log that Kafka has not answered since it started, and what it does. */
  private void awaitKafkaSilentSinceStart(String bootstrap, String meanwhile) {
    relay.awaitLogLine(
        ".*Kafka \\("
            + Pattern.quote(bootstrap)
            + "\\) has not answered since the relay started .*: "
            + Pattern.quote(meanwhile)
            + ".*",
        Duration.ofSeconds(60));
  }

  private long count(String where) {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE " + where))
        .longValue();
  }

  private Ledger.Result awaitAll(Ledger ledger, String bootstrap) {
    TopicReader reader = TopicReader.forPrefix(bootstrap, RelaySettings.topicPrefix(name));
    Ledger.Result result =
        ledger.check(
            reader.readUntilQuiet(
                ledger::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60)));
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  @Test
  void exitsWithCode2WhenNoBootstrapServerResolvesInEitherMode() throws Exception {
    write(new Ledger("x"), TestEvent.of("order", "o-1", 1));
    String unresolvable = "kafka.invalid:9092";

    // Waited for (relay.resolve.timeout), then refused: HostResolutionIT has the wait.
    RelayRun polling =
        start(
            "polling",
            RelaySettings.polling(db, unresolvable, name + "-p")
                .with("relay.resolve.timeout", "2s"));
    assertThat(polling.waitFor(Duration.ofSeconds(60))).as(polling.log()).isEqualTo(2);
    RelayRun cdc =
        start(
            "cdc",
            RelaySettings.cdc(db, unresolvable, name + "-c").with("relay.resolve.timeout", "2s"));
    assertThat(cdc.waitFor(Duration.ofSeconds(60))).as(cdc.log()).isEqualTo(2);

    for (RelayRun p : List.of(polling, cdc)) {
      assertThat(p.log())
          .contains(
              "startup check failed: kafka.bootstrap.servers: no bootstrap server resolves to an"
                  + " address (kafka.invalid:9092 (unknown host); waited 2 s,"
                  + " relay.resolve.timeout): check the host names and this machine's DNS")
          .doesNotContain("ready:")
          .doesNotContain("\tat ");
    }
    assertThat(count("status = 'PENDING' AND attempts = 0")).isEqualTo(1);
  }

  @Test
  void pollingClaimsNothingUntilKafkaHasAnsweredThenPublishes() throws Exception {
    int port = FreePorts.findFreePort();
    String bootstrap = "127.0.0.1:" + port;
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    write(ledger, TestEvent.of("order", "o-1", 1), TestEvent.of("order", "o-1", 2));
    start("polling", RelaySettings.polling(db, bootstrap, name));

    awaitKafkaSilentSinceStart(bootstrap, "not claiming events until it does");
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> count("status = 'PENDING' AND attempts = 0") == 2);
    assertThat(relay.log()).doesNotContain("ready:");

    try (KafkaBroker broker = KafkaBroker.builder().port(port).start()) {
      relay.awaitReady();
      write(ledger, TestEvent.of("order", "o-1", 3));

      Ledger.Result result = awaitAll(ledger, bootstrap);
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'PUBLISHED'") == 3);
      assertThat(relay.log()).containsPattern("Kafka \\(.*\\) answered after \\d+ s; starting");
    }
  }

  @Test
  void cdcIsNotReadyUntilKafkaHasAnsweredThenPublishesWhatFollows() throws Exception {
    int port = FreePorts.findFreePort();
    String bootstrap = "127.0.0.1:" + port;
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    try (OutboxDatabase cdcDb = OutboxDatabase.on(LocalStack.shared().mariaDb())) {
      start("cdc", RelaySettings.cdc(cdcDb, bootstrap, name));
      awaitKafkaSilentSinceStart(bootstrap, "the CDC engine waits until it does");
      assertThat(relay.log()).doesNotContain("ready:");

      try (KafkaBroker broker = KafkaBroker.builder().port(port).start()) {
        relay.awaitReady();
        try (Connection c = cdcDb.app()) {
          for (int i = 1; i <= 3; i++) {
            TestEvent e = TestEvent.of("order", "o-1", i);
            RawOutboxInserts.writeTransaction(c, List.of(e));
            ledger.expect(e);
          }
        }

        Ledger.Result result = awaitAll(ledger, bootstrap);
        assertThat(result.lost()).as(result.summary()).isZero();
        assertThat(result.duplicates()).as(result.summary()).isZero();
        assertThat(result.outOfOrder()).as(result.summary()).isZero();
      }
    }
  }

  @Test
  void cdcWarnsByItselfDuringAnOutageWhileKafkaClientsStayQuiet() throws Exception {
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    try (OutboxDatabase cdcDb = OutboxDatabase.on(LocalStack.shared().mariaDb());
        KafkaBroker broker = KafkaBroker.builder().start()) {
      start("cdc", RelaySettings.cdc(cdcDb, broker.bootstrapServers(), name)).awaitReady();
      try (Connection c = cdcDb.app()) {
        TestEvent first = TestEvent.of("order", "o-1", 1);
        RawOutboxInserts.writeTransaction(c, List.of(first));
        ledger.expect(first);
        awaitAll(ledger, broker.bootstrapServers());

        broker.stop();
        long linesBefore = relay.log().lines().count();
        for (int i = 2; i <= 20; i++) {
          TestEvent e = TestEvent.of("order", "o-1", i);
          RawOutboxInserts.writeTransaction(c, List.of(e));
          ledger.expect(e);
        }
        await()
            .during(Duration.ofSeconds(25))
            .atMost(Duration.ofSeconds(30))
            .until(() -> relay.isAlive());
        List<String> outageLog = relay.log().lines().skip(linesBefore).toList();
        LOG.info("{}: the relay's log during the outage:\n{}", name, String.join("\n", outageLog));
        broker.start();

        Ledger.Result result = awaitAll(ledger, broker.bootstrapServers());
        assertThat(result.lost()).as(result.summary()).isZero();
        assertThat(result.outOfOrder()).as(result.summary()).isZero();
        // Kafka's clients warned on every reconnect, about once a second each.
        assertThat(outageLog.stream().filter(l -> l.contains("NetworkClient")))
            .as(String.join("\n", outageLog))
            .isEmpty();
        // The relay's own: one WARN for the outage (repeated only after 30 s), no WARN per re-send.
        List<String> warnings = outageLog.stream().filter(l -> l.contains(" WARN ")).toList();
        assertThat(warnings)
            .as(String.join("\n", outageLog))
            .singleElement()
            .asString()
            .contains("is unreachable since")
            .contains("publishing paused");
        relay.awaitLogLine(
            ".*Kafka \\(.*\\) answers again after \\d+ s unreachable; publishing resumes.*",
            Duration.ofSeconds(30));
      }
    }
  }
}
