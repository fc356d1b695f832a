package io.outboxrelay.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka broker stopped and started again under a relay process in each mode, while an
 * application keeps writing: the relay must say once, during the outage, that Kafka is unreachable,
 * say when it answers again, publish every event in each aggregate's order by itself, and print no
 * stack trace.
 */
class KafkaBrokerFaultIT {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerFaultIT.class);
  private static final Pattern OUTAGE_WARN =
      Pattern.compile("(?m)^\\S+ WARN .*Kafka \\(.*\\) is unreachable since ");
  private static final Pattern OUTAGE_INFO =
      Pattern.compile("(?m)^\\S+ INFO .*Kafka \\(.*\\) answers again after \\d+ s unreachable");
  private static final Pattern STACK_FRAME =
      Pattern.compile("(?m)^(\\s+at [\\w.$]+\\(|Caused by: |\\s+\\.\\.\\. \\d+ more)");

  /**
   * The class's own broker, stopped and started again by each test: the tests do not need a fresh
   * one (each has its own topics and relay), and a broker start costs seconds.
   */
  private static KafkaBroker broker;

  @TempDir Path dir;
  private OutboxDatabase db;
  private String name;
  private Ledger ledger;

  @BeforeAll
  static void startBroker() {
    broker = KafkaBroker.builder().start();
  }

  @AfterAll
  static void closeBroker() {
    if (broker != null) {
      broker.close();
      broker = null;
    }
  }

  @BeforeEach
  void setUp() {
    db = OutboxDatabase.forPolling();
    name = "brokerfault-" + Long.toHexString(System.nanoTime() & 0xfffff);
    ledger = new Ledger(RelaySettings.topicPrefix(name));
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void aCdcRelayPublishesEveryEventInOrderAfterTheBrokerIsStoppedAndStarted() throws Exception {
    brokerStopsAndStarts(broker -> RelaySettings.cdc(db, broker.bootstrapServers(), name));
  }

  @Test
  void aPollingRelayPublishesEveryEventInOrderAfterTheBrokerIsStoppedAndStarted() throws Exception {
    brokerStopsAndStarts(
        broker ->
            RelaySettings.polling(db, broker.bootstrapServers(), name)
                .with("polling.workers", "2"));
  }

  private interface Settings {
    RelaySettings of(KafkaBroker broker);
  }

  private void brokerStopsAndStarts(Settings settings) throws Exception {
    broker.start(); // in case a failed test left it stopped
    Path config = settings.of(broker).writeTo(dir.resolve("relay.properties"));
    try (RelayRun relay = InProcessRun.run("relay", dir, config)) {
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        awaitPublished(broker, 400);

        broker.stop();
        LOG.info("{}: broker stopped", name);
        // The outage: the relay must tell it by itself while it lasts.
        await().atMost(Duration.ofSeconds(30)).until(() -> OUTAGE_WARN.matcher(relay.log()).find());
        broker.start();
        LOG.info("{}: broker accepts connections again", name);

        int writtenBefore = ledger.size();
        awaitPublished(broker, writtenBefore + 400); // written after the restart: it recovered
        writer.stop(Duration.ofSeconds(60));
      }
      Ledger.Result result = awaitAll(broker);
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.unexpected()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();

      await().atMost(Duration.ofSeconds(30)).until(() -> OUTAGE_INFO.matcher(relay.log()).find());
      String log = relay.log();
      log.lines()
          .filter(l -> l.contains("Kafka (") || l.contains("published "))
          .forEach(l -> LOG.info("relay: {}", l));
      assertThat(OUTAGE_WARN.matcher(log).results().count()).as(log).isEqualTo(1);
      assertThat(OUTAGE_INFO.matcher(log).results().count()).as(log).isEqualTo(1);
      assertThat(STACK_FRAME.matcher(log).find()).as(log).isFalse();
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
  }

  private TopicReader reader(KafkaBroker broker) {
    return TopicReader.forPrefix(broker.bootstrapServers(), RelaySettings.topicPrefix(name));
  }

  private void awaitPublished(KafkaBroker broker, int atLeast) {
    List<ConsumedRecord> records =
        reader(broker).readUntil(r -> r.size() >= atLeast, Duration.ofSeconds(120));
    assertThat(records).as("records published").hasSizeGreaterThanOrEqualTo(atLeast);
  }

  private Ledger.Result awaitAll(KafkaBroker broker) {
    List<ConsumedRecord> records =
        reader(broker)
            .readUntilQuiet(
                ledger::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60));
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", name, result.summary());
    return result;
  }
}
