package io.outboxrelay.relay.publish;

import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Asks Kafka for its cluster metadata with an admin client built from the producer's connection and
 * security settings: one small request, answered by any broker. Whatever Kafka sends back,
 * including an authorisation error, counts as an answer; only no answer (a timeout, a lost
 * connection, a client that cannot be created) does not. Thread-safe; the client is created on
 * first use and kept until {@link #close()}.
 */
public final class KafkaProbe implements KafkaBreaker.Probe {

  private final Map<String, Object> adminProperties;
  private Admin admin;

  /**
   * Creates the probe; no client is created yet.
   *
   * @param producerProperties the producer's configuration; the settings an admin client knows
   *     (bootstrap servers, security) are taken from it
   * @param clientId the admin client's client.id
   */
  public KafkaProbe(Map<String, Object> producerProperties, String clientId) {
    this.adminProperties = adminProperties(producerProperties, clientId);
  }

  /**
   * An admin client's configuration from a producer's: the settings an admin client knows
   * (bootstrap servers, security), and its own client id.
   *
   * @param producerProperties the producer's configuration
   * @param clientId the admin client's client.id
   * @return the admin client's configuration
   */
  public static Map<String, Object> adminProperties(
      Map<String, Object> producerProperties, String clientId) {
    Set<String> known = AdminClientConfig.configNames();
    Map<String, Object> props = new HashMap<>();
    producerProperties.forEach(
        (k, v) -> {
          if (known.contains(k)) {
            props.put(k, v);
          }
        });
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    return Map.copyOf(props);
  }

  @Override
  public String check(Duration timeout) throws InterruptedException {
    Admin a;
    try {
      a = admin();
    } catch (RuntimeException e) {
      return "cannot create a Kafka client: " + ErrorClassifier.describe(e);
    }
    int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    try {
      a.describeCluster(new DescribeClusterOptions().timeoutMs(ms))
          .nodes()
          .get(ms + 1000L, TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      Disposition d = ErrorClassifier.classify(cause);
      return d == Disposition.RETRY || d == Disposition.UNAVAILABLE
          ? ErrorClassifier.describe(cause)
          : null;
    } catch (TimeoutException e) {
      return "no answer within " + ms + " ms";
    }
  }

  private synchronized Admin admin() {
    if (admin == null) {
      admin = Admin.create(adminProperties);
    }
    return admin;
  }

  @Override
  public void close() {
    Admin old;
    synchronized (this) {
      old = admin;
      admin = null;
    }
    if (old != null) {
      old.close(Duration.ofSeconds(1));
    }
  }
}
