package io.outboxrelay.relay.source.cdc;

import java.lang.management.ManagementFactory;
import java.util.Optional;
import java.util.Set;
import javax.management.AttributeList;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Reads Debezium's streaming metrics (JMX, in-process) to learn whether the binlog reader is
 * connected, and for {@link BinlogConnectionWatch} whether it is waiting on a full queue. Stateless
 * and thread-safe.
 *
 * <p>Why this is the readiness signal: on a first start the connector reads the current binlog
 * position during its (data-less) snapshot and then connects the binlog reader at exactly that
 * position; {@code Connected=true} is set only after that. Every transaction committed after the
 * relay reports ready therefore lies after the start position and is captured. A transaction
 * committed before the position was read is not, which is what "start from the current position"
 * means.
 */
final class StreamingProbe {

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final String pattern;

  /**
   * Creates a probe for one connector.
   *
   * @param connectorType {@code mariadb} or {@code mysql}
   * @param logicalName Debezium's {@code topic.prefix}
   */
  StreamingProbe(String connectorType, String logicalName) {
    this.pattern =
        "debezium."
            + connectorType
            + ":type=connector-metrics,context=streaming,server="
            + logicalName
            + ",*"; // relay.name allows only characters JMX needs no quoting for
  }

  /**
   * One reading of the streaming metrics.
   *
   * @param connected whether the binlog client is connected (Debezium reads the client's own flag)
   * @param queueFull whether Debezium's queue is full, so that the binlog reader waits for the
   *     relay, not for the server
   * @param secondsSinceLastEvent whole seconds since the client last received anything (events and
   *     server heartbeats), -1 when unknown
   */
  record Sample(boolean connected, boolean queueFull, long secondsSinceLastEvent) {}

  /**
   * Reads the streaming metrics.
   *
   * @return the reading, or empty while the streaming metrics are not registered (starting,
   *     restarting, stopped)
   */
  Optional<Sample> sample() {
    try {
      for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
        AttributeList values =
            server.getAttributes(
                name,
                new String[] {"Connected", "QueueRemainingCapacity", "MilliSecondsSinceLastEvent"});
        if (values.size() == 3) {
          boolean connected = Boolean.TRUE.equals(values.asList().get(0).getValue());
          Object remaining = values.asList().get(1).getValue();
          Object sinceLast = values.asList().get(2).getValue();
          return Optional.of(
              new Sample(
                  connected,
                  remaining instanceof Number n && n.intValue() <= 0,
                  sinceLast instanceof Number m && m.longValue() >= 0 ? m.longValue() / 1000 : -1));
        }
      }
      return Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the binlog reader is connected and streaming.
   *
   * @return true when connected
   */
  boolean isStreaming() {
    try {
      Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
      for (ObjectName name : names) {
        Object connected = server.getAttribute(name, "Connected");
        if (Boolean.TRUE.equals(connected)) {
          return true;
        }
      }
      return false;
    } catch (Exception e) {
      return false;
    }
  }
}
