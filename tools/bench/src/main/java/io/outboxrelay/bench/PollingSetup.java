package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one polling-mode run needs: a fresh outbox database with the polling grants (on the bench's
 * MariaDB unless the run brings its own, e.g. {@link OutboxDatabase#postgres()}), the relay's
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
    this(context, label, OutboxDatabase.on(context.mariaDb()).grantPolling(), settings);
  }

  /**
   * A run on a database of the caller's, which this setup then owns (closing it drops it).
   *
   * @param db a fresh outbox database whose relay user has the polling grants
   */
  PollingSetup(BenchEnv context, String label, OutboxDatabase db, Map<String, String> settings)
      throws Exception {
    this.context = context;
    this.name = label + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    this.db = db;
    this.counter = new TopicCounter(context.bootstrapServers());
    this.topics =
        BenchEvents.AGGREGATE_TYPES.stream().map(t -> RelaySettings.topicPrefix(name) + t).toList();
    try {
      counter.createLogAppendTimeTopics(topics, 3);
    } catch (Exception e) {
      close(); // the caller gets no setup to close
      throw e;
    }
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

  /** What precedes the aggregate type in the relay's topic names. */
  String topicPrefix() {
    return RelaySettings.topicPrefix(name);
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
    return counter.awaitCount(topics, expected, timeout);
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
