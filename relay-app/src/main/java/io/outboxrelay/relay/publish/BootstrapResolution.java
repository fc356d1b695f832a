package io.outboxrelay.relay.publish;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.BootstrapServers;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.metrics.RelayHealth;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits at start until a host of {@code kafka.bootstrap.servers} resolves to an address. A name
 * that does not resolve yet (a compose service, a Kubernetes Service without ready pods) is waited
 * for as a Kafka that does not answer is: readiness names the servers, one WARN, again every 30 s;
 * after {@code relay.resolve.timeout} it is a startup check failure naming them. When some hosts
 * resolve and others do not, the relay warns and uses those that do, as the Kafka client does. Each
 * attempt looks the names up afresh (the launcher turns the JVM's cache of failed lookups off).
 * Stateless.
 */
public final class BootstrapResolution {

  private static final Logger LOG = LoggerFactory.getLogger(BootstrapResolution.class);

  /** How often the names are looked up again while none resolves. */
  static final Duration RETRY = Duration.ofMillis(500);

  private BootstrapResolution() {}

  /**
   * Returns once a bootstrap server resolves.
   *
   * @param servers the value of {@code kafka.bootstrap.servers}
   * @param timeout how long to wait for one to resolve
   * @param context the log prefix
   * @param health where readiness is reported
   * @param stopping polled between attempts: true when the relay is asked to stop
   * @return true once one resolves, false when asked to stop first
   * @throws StartupCheckException when none resolved within the timeout
   * @throws InterruptedException when interrupted while waiting
   */
  public static boolean await(
      String servers,
      Duration timeout,
      String context,
      RelayHealth health,
      BooleanSupplier stopping)
      throws StartupCheckException, InterruptedException {
    OutageLog outages =
        new OutageLog(
            LOG,
            context,
            "Kafka (" + servers + ")",
            "the relay starts as soon as a bootstrap server resolves (looking up every "
                + RETRY.toMillis()
                + " ms)",
            OutageLog.REPEAT,
            Clock.systemUTC());
    long started = System.nanoTime();
    Instant since = Instant.now();
    try {
      while (!stopping.getAsBoolean()) {
        List<String> unresolvable = BootstrapServers.unresolvable(servers);
        if (unresolvable.size() < BootstrapServers.count(servers)) {
          outages.up("starting");
          if (!unresolvable.isEmpty()) {
            LOG.warn(
                "[{}] kafka.bootstrap.servers: {} do not resolve to an address; using the others",
                context,
                String.join(", ", unresolvable));
          }
          return true;
        }
        String hosts = String.join(", ", unresolvable);
        if (System.nanoTime() - started >= timeout.toNanos()) {
          throw new StartupCheckException(
              List.of(
                  "kafka.bootstrap.servers: no bootstrap server resolves to an address ("
                      + hosts
                      + (timeout.isZero()
                          ? ""
                          : "; waited " + timeout.toSeconds() + " s, relay.resolve.timeout")
                      + "): check the host names and this machine's DNS"));
        }
        String reason = "kafka.bootstrap.servers do not resolve to an address yet (" + hosts + ")";
        health.down(RelayHealth.Dependency.KAFKA, RelayHealth.RESOLVING, reason);
        outages.down(since, reason + " (waiting up to " + timeout.toSeconds() + " s for one)");
        Thread.sleep(RETRY.toMillis());
      }
      return false;
    } finally {
      health.up(RelayHealth.Dependency.KAFKA, RelayHealth.RESOLVING);
    }
  }
}
