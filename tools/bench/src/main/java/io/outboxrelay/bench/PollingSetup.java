package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one polling-mode run needs: a fresh outbox database with the polling grants, the relay's
 * topics (created with the broker's append time as record timestamps, 3 partitions each), and a
 * relay configuration with the product's polling defaults (the test fixture's short {@code
 * polling.interval} removed) plus the run's settings and the bench's {@code --relay-set} overrides.
 * Closing it drops the database. Not thread-safe.
 */
final class PollingSetup implements AutoCloseable {

  private final BenchEnv context;
  private final String name;
  private final OutboxDatabase db;
  private final TopicCounter counter;
  private final List<String> topics;
  private final Path config;

  PollingSetup(BenchEnv context, String label, Map<String, String> settings) throws Exception {
    this.context = context;
    this.name = label + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    MariaDbServer mariaDb = context.mariaDb();
    this.db = OutboxDatabase.on(mariaDb).grantPolling();
    this.counter = new TopicCounter(context.bootstrapServers());
    this.topics =
        BenchEvents.AGGREGATE_TYPES.stream().map(t -> RelaySettings.topicPrefix(name) + t).toList();
    counter.createLogAppendTimeTopics(topics, 3);
    RelaySettings relaySettings =
        RelaySettings.polling(db, context.bootstrapServers(), name)
            .without("polling.interval")
            .with("relay.stats.interval", "10s");
    settings.forEach(relaySettings::with);
    this.config = context.writeConfig(relaySettings, name);
  }

  OutboxDatabase db() {
    return db;
  }

  List<String> topics() {
    return topics;
  }

  String bootstrapServers() {
    return context.bootstrapServers();
  }

  /** Records in the relay's topics now. */
  long published() throws InterruptedException {
    return counter.count(topics);
  }

  /**
   * Waits until the relay's topics hold at least {@code expected} records.
   *
   * @return false if they did not within {@code timeout}
   */
  boolean awaitPublished(long expected, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (counter.count(topics) < expected) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Starts the relay as a child process and waits for its ready line. */
  RelayProcess startRelay() {
    RelayProcess relay = context.startRelay(name, config);
    relay.awaitReady();
    return relay;
  }

  /** Stops the relay with SIGTERM and waits for it to exit. */
  static void stop(RelayProcess relay) {
    relay.process().terminate();
    relay.waitFor(Duration.ofSeconds(60));
  }

  @Override
  public void close() {
    counter.close();
    db.close();
  }
}
