package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.metrics.MetricNames;
import io.outboxrelay.relay.testing.Configs;
import io.outboxrelay.relay.testing.OwnMariaDbFaultTest;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ClassBroker;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code delivery.guarantee=exactly-once} under real faults: relay processes killed with SIGKILL,
 * frozen with SIGSTOP past their lease, the broker and the database stopped and started. A ledger
 * read with {@code read_committed} checks every event by id: none lost, none twice, each
 * aggregate's in order.
 */
class ExactlyOnceIT extends OwnMariaDbFaultTest {

  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceIT.class);
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";
  private static final ClassBroker OWN_BROKER = new ClassBroker();

  @AfterAll
  static void closeOwnBroker() {
    OWN_BROKER.close(); // the tests that stop it share it: see ClassBroker
  }

  @Override
  protected String label() {
    return "eos";
  }

  private RelaySettings settings(String bootstrapServers) {
    return RelaySettings.cdc(db, bootstrapServers, name)
        .with("delivery.guarantee", "exactly-once")
        .with("delivery.progress.topic", name + "-progress");
  }

  private void assertExactlyOnce(Ledger.Result result) {
    assertNothingLostOrReordered(result);
    assertThat(result.duplicates()).as(result.summary()).isZero();
  }

  /** Waits until every event of the ledger arrived on a broker, reads on until quiet, checks. */
  private Ledger.Result awaitAllOn(String bootstrapServers) {
    TopicReader reader = TopicReader.forPrefix(bootstrapServers, RelaySettings.topicPrefix(name));
    List<ConsumedRecord> records =
        reader.readUntilQuiet(
            ledger::allArrived,
            Duration.ofSeconds(120),
            Duration.ofSeconds(2),
            Duration.ofSeconds(60));
    Ledger.Result result = ledger.check(records);
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  private void awaitPublishedOn(String bootstrapServers, int atLeast) {
    TopicReader.forPrefix(bootstrapServers, RelaySettings.topicPrefix(name))
        .readUntil(r -> r.size() >= atLeast, Duration.ofSeconds(120));
  }

  /** The lines where a relay says which position it resumes at. */
  private static String exactlyOnceLines(String log) {
    StringBuilder sb = new StringBuilder();
    log.lines().filter(l -> l.contains("] exactly-once: ")).forEach(l -> sb.append(l).append('\n'));
    return sb.toString();
  }

  /**
   * A lone relay killed twice, frozen, and living through a broker restart and a database restart,
   * under a steady load: every event once.
   */
  @Test
  void aLoneRelayPublishesEveryEventOnceThroughKillsAFreezeAndOutages() throws Exception {
    KafkaBroker broker = OWN_BROKER.started();
    String servers = broker.bootstrapServers();
    Path config = settings(servers).writeTo(dir.resolve("relay.properties"));
    RelayProcess relay = RelayProcess.run("relay-1", dir, config);
    StringBuilder starts = new StringBuilder();
    try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 400, 40, 2)) {
      for (int kill = 1; kill <= 2; kill++) {
        awaitPublishedOn(servers, ledger.size() / 2 + 300);
        relay.process().kill();
        assertThat(relay.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
        relay = RelayProcess.run("relay-" + (kill + 1), dir, config);
        starts.append(exactlyOnceLines(relay.log()));
      }
      awaitPublishedOn(servers, ledger.size() / 2 + 300);
      relay.process().pause();
      Thread.sleep(5_000);
      relay.process().resume();

      awaitPublishedOn(servers, ledger.size() / 2 + 300);
      broker.stop();
      Thread.sleep(10_000);
      broker.start();

      awaitPublishedOn(servers, ledger.size() / 2 + 300);
      server.stop();
      Thread.sleep(5_000);
      server.start();
      awaitPublishedOn(servers, ledger.size() + 300);
      writer.stop(Duration.ofSeconds(60));
    }
    Ledger.Result result = awaitAllOn(servers);
    assertThat(ledger.size()).isGreaterThan(3_000);
    assertExactlyOnce(result);
    LOG.info("{}: starts after the kills\n{}", name, starts);
    // Each restart resumed where Kafka's records end: at Kafka's position, or at the database's
    // where it was the same (the kill came after the database caught up).
    assertThat(starts.toString().lines())
        .hasSize(2)
        .allMatch(
            l ->
                l.contains("exactly-once: resuming at the position committed in Kafka")
                    || l.contains("exactly-once: starting from the database's position")
                        && l.contains(": the same ("));
    relay.process().terminate();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
  }

  /**
   * The leader frozen while its transaction is open (records wait five seconds in the producer), a
   * standby takes over and publishes; the old leader wakes with its transaction's records still to
   * send and commit, and nothing of it becomes visible.
   */
  @Test
  void aFrozenLeadersTransactionNeverBecomesVisibleAfterAStandbyTookOver() throws Exception {
    Path config =
        settings(bootstrap)
            .with("kafka.producer.linger.ms", "3000")
            .writeTo(dir.resolve("relay.properties"));
    try (RelayProcess a =
        RelayProcess.start("relay-a", dir, "run", "--config", config.toString())) {
      a.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
      a.awaitReady();
      try (RelayProcess b =
          RelayProcess.start("relay-b", dir, "run", "--config", config.toString())) {
        b.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
        assertThat(b.log()).contains("] standby (holder ");
        try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
          awaitPublished(300);
          Thread.sleep(1_500); // into a transaction: each one lasts the linger
          a.process().pause();
          b.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(60));
          b.awaitReady();
          awaitPublished(ledger.size() + 200);
          a.process().resume();
          a.process()
              .awaitLogLine(
                  ".*\\] (lost the lease \\(epoch 1\\)|the Kafka transactions of this term end).*",
                  Duration.ofSeconds(60));
          awaitPublished(ledger.size() + 200);
          writer.stop(Duration.ofSeconds(60));
        }
        Ledger.Result result = awaitAll();
        String woken = a.log();
        LOG.info(
            "{}: the old leader after it woke\n{}\nthe new leader\n{}",
            name,
            woken
                .lines()
                .filter(
                    l ->
                        l.contains("lost the lease")
                            || l.contains("transactions of this term end")
                            || l.contains("standby (holder")
                            || l.contains("leader (epoch"))
                .reduce("", (x, y) -> x + y + "\n"),
            exactlyOnceLines(b.log()));
        assertExactlyOnce(result);
        assertThat(exactlyOnceLines(b.log())).isNotEmpty();
        // What the old leader had sent may sit in the log, aborted: a read_uncommitted reader sees
        // it as duplicates, a read_committed one never does.
        List<ConsumedRecord> all =
            reader().includingUncommitted().readAll(Duration.ofSeconds(2), Duration.ofSeconds(60));
        LOG.info(
            "{}: read_uncommitted {} records, read_committed {}",
            name,
            all.size(),
            result.summary());
      }
    }
  }

  /**
   * The broker restarted while batches are in flight: their transactions are aborted and sent again
   * in new ones, each event visible once.
   */
  @Test
  void transactionsAbortedByABrokerRestartArePublishedOnceAfterwards() throws Exception {
    KafkaBroker broker = OWN_BROKER.started();
    String servers = broker.bootstrapServers();
    Relay relay =
        Relay.create(
            settings(servers)
                // Records wait for Kafka 5 s at most: the outage outlasts that, so the
                // transaction in flight fails and is given up (aborted), its records sent again.
                .with("kafka.producer.delivery.timeout.ms", "5000")
                .with("kafka.producer.request.timeout.ms", "2000")
                .with("kafka.producer.max.block.ms", "2000")
                .with("cdc.retry.backoff.max", "1s")
                .parsedBy(Configs::parse));
    try {
      relay.start();
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 300, 40, 2)) {
        awaitPublishedOn(servers, 300);
        broker.stop();
        Thread.sleep(8_000);
        broker.start();
        awaitPublishedOn(servers, ledger.size() + 300);
        writer.stop(Duration.ofSeconds(60));
      }
      Ledger.Result result = awaitAllOn(servers);
      assertExactlyOnce(result);
      double aborted =
          relay
              .metrics()
              .registry()
              .get(MetricNames.TRANSACTIONS)
              .tag("outcome", "aborted")
              .counter()
              .count();
      double committed =
          relay
              .metrics()
              .registry()
              .get(MetricNames.TRANSACTIONS)
              .tag("outcome", "committed")
              .counter()
              .count();
      LOG.info("{}: transactions committed {}, aborted {}", name, committed, aborted);
      assertThat(aborted).as("transactions the outage aborted").isGreaterThanOrEqualTo(1);
      assertThat(committed).isGreaterThan(1);
      assertThat(relay.termination()).as("the relay kept running").isNotDone();
    } finally {
      relay.close();
    }
  }
}
