package io.outboxrelay.relay.source.cdc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The task configuration of the relay's connectors: Debezium's own, except that {@code
 * connector.class} names Debezium's connector rather than the relay's subclass of it.
 *
 * <p>Debezium picks the snapshot lock and snapshot query implementations of a mode by comparing
 * {@code connector.class} with the connector each implementation is written for. With the relay's
 * subclass there it matches none, warns ("Found a not connector specific implementation ...") on
 * every start and takes the first implementation of that mode it finds, which may be another
 * connector's (the MySQL one for MariaDB). Only the task sees the stock class: the engine still
 * starts the relay's connector, whose task class is the relay's. Stateless.
 */
final class DebeziumTaskConfig {

  private DebeziumTaskConfig() {}

  /**
   * Copies task configurations with {@code connector.class} set to Debezium's connector.
   *
   * @param stock Debezium's connector class that the relay's connector extends
   * @param configs the connector's task configurations; not changed
   * @return the copies
   */
  static List<Map<String, String>> naming(Class<?> stock, List<Map<String, String>> configs) {
    List<Map<String, String>> copies = new ArrayList<>(configs.size());
    for (Map<String, String> config : configs) {
      Map<String, String> copy = new HashMap<>(config);
      copy.put("connector.class", stock.getName());
      copies.add(copy);
    }
    return copies;
  }
}
