package io.outboxrelay.relay;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.metrics.StatsReporter;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.source.cdc.CdcSource;
import io.outboxrelay.relay.source.polling.PollingSource;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One relay: a source (CDC or polling), the Kafka publisher and the throughput line, with a
 * lifecycle usable in-process (tests, embedding) and from the CLI.
 *
 * <p>{@link #start()} returns once the relay is ready; {@link #close()} drains gracefully (stop
 * intake, wait for in-flight acknowledgements up to {@code relay.shutdown.timeout}, commit
 * positions, close the producer and the source) and is idempotent. Thread-safe.
 */
public final class Relay implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);

  private final RelayConfig config;
  private final RelayMetrics metrics = new RelayMetrics();
  private final KafkaPublisher publisher;
  private final OutboxSource source;
  private StatsReporter stats;
  private boolean closed;

  private Relay(RelayConfig config) {
    this.config = config;
    Map<String, Object> producerProps = config.producer().asProperties(config.name());
    this.publisher =
        new KafkaPublisher(() -> new KafkaProducer<>(producerProps), config.logContext());
    this.source =
        config.mode() == RelayMode.CDC
            ? new CdcSource(config, publisher, metrics)
            : new PollingSource(config, publisher, metrics);
  }

  /**
   * Creates a relay; nothing starts until {@link #start()}.
   *
   * @param config the configuration
   * @return the relay
   */
  public static Relay create(RelayConfig config) {
    return new Relay(config);
  }

  /**
   * Starts the relay and returns once it is ready: every event committed from now on will be
   * published.
   *
   * @throws StartupCheckException when the source database is not set up for the mode
   * @throws RelayFailure when the relay cannot start
   * @throws InterruptedException when interrupted while starting
   */
  public void start() throws StartupCheckException, InterruptedException {
    LOG.info("[{}] starting with configuration:\n{}", config.logContext(), config.describe());
    try {
      source.start();
    } catch (StartupCheckException | RuntimeException | InterruptedException e) {
      publisher.close(Duration.ZERO);
      throw e;
    }
    synchronized (this) {
      stats =
          new StatsReporter(
              metrics, config.logContext(), config.statsInterval(), Clock.systemUTC());
    }
  }

  /**
   * Completes when the relay has stopped: normally after {@link #close()}, exceptionally with a
   * {@link RelayFailure} when it failed on its own.
   *
   * @return the termination future
   */
  public CompletableFuture<Void> termination() {
    return source.termination();
  }

  /**
   * The relay's counters.
   *
   * @return the metrics
   */
  public RelayMetrics metrics() {
    return metrics;
  }

  /** Drains and stops; idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    Duration timeout = config.shutdownTimeout();
    LOG.info(
        "[{}] stopping: draining in-flight events (up to {} ms)",
        config.logContext(),
        timeout.toMillis());
    source.stop(timeout);
    publisher.close(Duration.ofSeconds(5));
    synchronized (this) {
      if (stats != null) {
        stats.close();
      }
    }
    LOG.info("[{}] stopped", config.logContext());
  }
}
