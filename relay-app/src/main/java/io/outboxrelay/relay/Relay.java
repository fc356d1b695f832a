package io.outboxrelay.relay;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.http.Monitoring;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.metrics.StatsReporter;
import io.outboxrelay.relay.publish.BootstrapResolution;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaProbe;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.publish.TopicLimits;
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
 * One relay: a source (CDC or polling), the Kafka publisher, the breaker that knows whether Kafka
 * answers, and the throughput line, with a lifecycle usable in-process (tests, embedding) and from
 * the CLI.
 *
 * <p>With {@code http.port} set, the HTTP endpoint ({@code /metrics}, {@code /health/*}) serves
 * from the start of {@link #start()} until the end of {@link #close()}.
 *
 * <p>{@link #start()} returns once the relay is ready, which includes Kafka having answered once;
 * {@link #close()} drains gracefully (stop intake, wait for in-flight acknowledgements up to {@code
 * relay.shutdown.timeout}, commit positions, close the producer and the source) and is idempotent.
 * Thread-safe.
 */
public final class Relay implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);

  /** How often Kafka is asked whether it answers, while it does not. */
  private static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

  private final RelayConfig config;
  private final RelayMetrics metrics = new RelayMetrics();
  private final KafkaPublisher publisher;
  private final KafkaBreaker kafka;
  private final OutboxSource source;
  private StatsReporter stats;
  private Monitoring monitoring;
  private boolean closed;

  private Relay(RelayConfig config) {
    this.config = config;
    Map<String, Object> producerProps = config.producer().asProperties(config.name());
    boolean cdc = config.mode() == RelayMode.CDC;
    this.kafka =
        new KafkaBreaker(
            new KafkaProbe(producerProps, config.name() + "-probe"),
            config.logContext(),
            config.producer().bootstrapServers(),
            cdc ? "the CDC engine waits" : "not claiming events",
            cdc
                ? "publishing paused; the events not acknowledged are sent again, in order, once"
                    + " Kafka answers"
                : "claiming paused; events in flight wait for the producer, then go back to"
                    + " PENDING without counting an attempt",
            cdc ? "publishing resumes" : "claiming resumes",
            PROBE_INTERVAL,
            Clock.systemUTC());
    this.publisher =
        new KafkaPublisher(
            () -> new KafkaProducer<>(producerProps),
            config.logContext(),
            this.kafka,
            TopicLimits.of(
                producerProps,
                RecordSizeLimit.batchSize(producerProps),
                config.name() + "-limits",
                config.logContext()));
    this.source =
        cdc
            ? new CdcSource(config, publisher, kafka, metrics)
            : new PollingSource(config, publisher, kafka, metrics);
    metrics.health().roleFrom(source::role);
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
   * published. Waits, without limit, until Kafka has answered once (warning while it does not); the
   * source's startup checks run meanwhile. A host name that does not resolve ({@code
   * kafka.bootstrap.servers}, {@code source.host}) is waited for up to {@code
   * relay.resolve.timeout}.
   *
   * @throws StartupCheckException when no bootstrap server or the source host resolves in time, or
   *     the source database is not set up for the mode
   * @throws RelayFailure when the relay cannot start
   * @throws InterruptedException when interrupted while starting
   */
  public void start() throws StartupCheckException, InterruptedException {
    LOG.info("[{}] starting with configuration:\n{}", config.logContext(), config.describe());
    try {
      if (config.http() != null) {
        // Before anything is waited for: probes see "starting" rather than a refused connection.
        Monitoring m = Monitoring.start(config, metrics, kafka);
        synchronized (this) {
          monitoring = m;
        }
      }
      // A name that does not resolve yet is waited for (bounded), as a Kafka that does not answer.
      if (!BootstrapResolution.await(
          config.producer().bootstrapServers(),
          config.resolveTimeout(),
          config.logContext(),
          metrics.health(),
          this::isClosed)) {
        throw new InterruptedException("closed while waiting for the bootstrap servers");
      }
      kafka.start(); // asks Kafka while the source runs its checks
      source.start();
    } catch (StartupCheckException | RuntimeException | InterruptedException e) {
      kafka.close();
      publisher.close(Duration.ZERO);
      closeMonitoring();
      throw e;
    }
    metrics.health().running();
    if (config.mode() == RelayMode.CDC) {
      // Not needed again unless Kafka stops answering: the next probe creates a new client.
      kafka.releaseProbe();
    }
    synchronized (this) {
      stats =
          new StatsReporter(
              metrics,
              config.logContext(),
              config.statsInterval(),
              Clock.systemUTC(),
              source::role);
    }
  }

  private synchronized boolean isClosed() {
    return closed;
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
    metrics.health().stopping();
    Duration timeout = config.shutdownTimeout();
    LOG.info(
        "[{}] stopping: draining in-flight events (up to {} ms)",
        config.logContext(),
        timeout.toMillis());
    source.stop(timeout);
    kafka.close();
    publisher.close(Duration.ofSeconds(5));
    synchronized (this) {
      if (stats != null) {
        stats.close();
      }
    }
    closeMonitoring();
    LOG.info("[{}] stopped", config.logContext());
  }

  private void closeMonitoring() {
    Monitoring m;
    synchronized (this) {
      m = monitoring;
      monitoring = null;
    }
    if (m != null) {
      m.close();
    }
  }
}
