package io.outboxrelay.relay.http;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.metrics.Refresher;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.metrics.RelayHealth.Dependency;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaProbe;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.CdcStats;
import io.outboxrelay.relay.source.cdc.SlotStats;
import io.outboxrelay.relay.source.polling.PollingStats;
import java.time.Duration;
import java.util.Map;

/**
 * What runs when {@code http.port} is set: the {@link HttpEndpoint} and the periodic checks that
 * keep its answers current without work per request. Every {@link #KAFKA_EVERY} a metadata request
 * asks Kafka whether it answers (an idle relay learns of an outage too); a polling relay's breaker
 * is read every second; the source's figures are refreshed every {@link #SOURCE_EVERY} (polling: a
 * few indexed queries; CDC: Debezium's streaming metrics and {@code SHOW BINARY LOGS}). Without
 * {@code http.port} none of this exists. Thread-safe; {@link #close()} is idempotent.
 */
public final class Monitoring implements AutoCloseable {

  /** How often Kafka is probed. */
  public static final Duration KAFKA_EVERY = Duration.ofSeconds(5);

  /** How often the source's figures are refreshed. */
  public static final Duration SOURCE_EVERY = Duration.ofSeconds(5);

  private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(5);

  private final HttpEndpoint endpoint;
  private final Refresher refresher;
  private final KafkaProbe probe;
  private final AutoCloseable stats;

  private Monitoring(
      HttpEndpoint endpoint, Refresher refresher, KafkaProbe probe, AutoCloseable stats) {
    this.endpoint = endpoint;
    this.refresher = refresher;
    this.probe = probe;
    this.stats = stats;
  }

  /**
   * Starts the endpoint and the checks, before the relay itself starts (readiness says "starting"
   * meanwhile).
   *
   * @param config the relay's configuration, with {@code http} set
   * @param metrics the relay's metrics and health
   * @param breaker the relay's Kafka breaker (polling pauses claims while it is open)
   * @return the running monitoring
   * @throws StartupCheckException when the endpoint's address cannot be bound
   */
  public static Monitoring start(RelayConfig config, RelayMetrics metrics, KafkaBreaker breaker)
      throws StartupCheckException {
    HttpEndpoint endpoint = HttpEndpoint.start(config.http(), metrics, config.logContext());
    RelayHealth health = metrics.health();
    Refresher refresher = new Refresher(config.logContext());
    Map<String, Object> producerProps = config.producer().asProperties(config.name());
    KafkaProbe probe = new KafkaProbe(producerProps, config.name() + "-health");
    refresher.every(
        "Kafka probe",
        KAFKA_EVERY,
        () -> {
          String failure = probe.check(KAFKA_TIMEOUT);
          if (failure == null) {
            health.up(Dependency.KAFKA, "probe");
          } else {
            health.down(Dependency.KAFKA, "probe", failure);
          }
        });
    AutoCloseable stats;
    if (config.mode() == RelayMode.POLLING) {
      refresher.every(
          "Kafka breaker",
          Duration.ofSeconds(1),
          () -> {
            // Waiting for the first answer is "starting"; open means claims are paused.
            if (breaker.state() == KafkaBreaker.State.OPEN) {
              health.down(Dependency.KAFKA, "breaker", "claiming paused");
            } else {
              health.up(Dependency.KAFKA, "breaker");
            }
          });
      PollingStats polling = new PollingStats(config.source(), metrics.sourceGauges(), health);
      refresher.every("backlog query", SOURCE_EVERY, polling::refresh);
      stats = polling;
    } else if (!SqlDialect.of(config.source().flavor()).hasBinlog()) {
      SlotStats slot =
          new SlotStats(
              config.source(),
              config.name(),
              config.cdc().offsetsTable(),
              config.logContext(),
              metrics.sourceGauges(),
              health);
      refresher.every("slot lag", SOURCE_EVERY, slot::refresh);
      stats = slot;
    } else {
      CdcStats cdc =
          new CdcStats(
              config.source(),
              config.name(),
              config.cdc().offsetsTable(),
              metrics.sourceGauges(),
              health);
      refresher.every("binlog lag", SOURCE_EVERY, cdc::refresh);
      stats = cdc;
    }
    return new Monitoring(endpoint, refresher, probe, stats);
  }

  /**
   * The port the endpoint listens on.
   *
   * @return the port
   */
  public int port() {
    return endpoint.port();
  }

  /** Stops the checks and the endpoint. Idempotent. */
  @Override
  public void close() {
    refresher.close();
    endpoint.close();
    probe.close();
    try {
      if (stats != null) {
        stats.close();
      }
    } catch (Exception e) {
      // a connection already broken
    }
  }
}
