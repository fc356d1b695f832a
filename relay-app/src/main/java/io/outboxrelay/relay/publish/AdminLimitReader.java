package io.outboxrelay.relay.publish;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Reads a topic's {@code max.message.bytes} with an admin client ({@code DescribeConfigs} on the
 * topic), or the broker's {@code message.max.bytes} for a topic that does not exist yet ({@code
 * DescribeConfigs} on the cluster). The client is created on the first read. Thread-safe.
 */
final class AdminLimitReader implements TopicLimits.Reader, AutoCloseable {

  private final Map<String, Object> properties;
  private Admin admin;

  AdminLimitReader(Map<String, Object> properties) {
    this.properties = properties;
  }

  @Override
  public int maxMessageBytes(String topic) throws Exception {
    int ms = (int) TopicLimits.TIMEOUT.toMillis();
    try {
      return value(
          describe(new ConfigResource(ConfigResource.Type.TOPIC, topic), ms),
          TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
        throw e;
      }
    }
    // Not created yet: it will be, with the broker's default.
    Collection<Node> nodes =
        admin()
            .describeCluster(new DescribeClusterOptions().timeoutMs(ms))
            .nodes()
            .get(ms + 1000L, TimeUnit.MILLISECONDS);
    Node node = nodes.iterator().next();
    return value(
        describe(new ConfigResource(ConfigResource.Type.BROKER, node.idString()), ms),
        "message.max.bytes");
  }

  private Config describe(ConfigResource resource, int ms)
      throws ExecutionException, InterruptedException, TimeoutException {
    return admin()
        .describeConfigs(List.of(resource), new DescribeConfigsOptions().timeoutMs(ms))
        .all()
        .get(ms + 1000L, TimeUnit.MILLISECONDS)
        .get(resource);
  }

  private static int value(Config config, String name) {
    ConfigEntry entry = config == null ? null : config.get(name);
    if (entry == null || entry.value() == null) {
      throw new IllegalStateException("the broker did not say its " + name);
    }
    return Integer.parseInt(entry.value().trim());
  }

  private synchronized Admin admin() {
    if (admin == null) {
      admin = Admin.create(properties);
    }
    return admin;
  }

  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }
}
