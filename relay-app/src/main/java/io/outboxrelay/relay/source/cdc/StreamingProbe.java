package io.outboxrelay.relay.source.cdc;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Reads Debezium's streaming metrics (JMX, in-process) to learn whether the binlog reader is
 * connected. Stateless and thread-safe.
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
