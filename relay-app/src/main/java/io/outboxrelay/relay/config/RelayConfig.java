package io.outboxrelay.relay.config;

import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.TopicTemplate;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The relay's whole configuration, parsed and checked. Immutable; build it with {@link
 * ConfigLoader}.
 *
 * @param mode the source mode
 * @param name the relay's name
 * @param statsInterval how often the throughput line is logged
 * @param shutdownTimeout how long SIGTERM waits for in-flight acknowledgements
 * @param resolveTimeout how long the start waits for a host name that does not resolve
 * @param source the source database
 * @param topicTemplate the topic template
 * @param routerHeaders the relay's own headers to publish, in order ({@code router.headers})
 * @param versionCheck the per-aggregate version check
 * @param producer the Kafka producer settings
 * @param delivery the delivery guarantee, and for exactly-once its transactional id and progress
 *     topic
 * @param cdc CDC settings, or {@code null} in polling mode
 * @param polling polling settings, or {@code null} in CDC mode
 * @param http the HTTP endpoint, or {@code null} when {@code http.port} is not set
 * @param effective every effective setting as printable text, secrets hidden, sorted by key
 * @param notices what an operator should know about where the settings came from (a --mode that
 *     overrides the file), logged at INFO at start
 * @param warnings what looks wrong but does not stop the relay (a key given twice, an unknown
 *     Debezium setting), logged at WARN at start
 */
public record RelayConfig(
    RelayMode mode,
    String name,
    Duration statsInterval,
    Duration shutdownTimeout,
    Duration resolveTimeout,
    SourceConfig source,
    TopicTemplate topicTemplate,
    List<String> routerHeaders,
    VersionCheckConfig versionCheck,
    ProducerSettings producer,
    DeliveryConfig delivery,
    CdcConfig cdc,
    PollingConfig polling,
    HttpConfig http,
    SortedMap<String, String> effective,
    List<String> notices,
    List<String> warnings) {

  /** Freezes the printable settings and messages. */
  public RelayConfig {
    routerHeaders = List.copyOf(routerHeaders);
    effective = Collections.unmodifiableSortedMap(new TreeMap<>(effective));
    notices = List.copyOf(notices);
    warnings = List.copyOf(warnings);
  }

  /**
   * A router for these settings: the topic template and the relay's own headers.
   *
   * @return a new router
   */
  public EventRouter eventRouter() {
    return EventRouter.builder().topicTemplate(topicTemplate).headers(routerHeaders).build();
  }

  /**
   * The effective configuration as {@code key = value} lines, sorted, secrets hidden; logged once
   * at start.
   *
   * @return the lines joined with newlines
   */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    effective.forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    return sb.toString();
  }

  /**
   * The prefix of the relay's log lines: {@code [relay mode=cdc name=outbox-relay]}.
   *
   * @return the prefix
   */
  public String logContext() {
    return "relay mode=" + mode.name().toLowerCase(java.util.Locale.ROOT) + " name=" + name;
  }
}
