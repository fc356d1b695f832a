package io.outboxrelay.relay.source.cdc;

import io.debezium.schema.DefaultTopicNamingStrategy;
import io.debezium.spi.schema.DataCollectionId;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Debezium's default topic names for change events, each computed once per table. Set as the
 * connector's {@code topic.naming.strategy}; every name is the one Debezium's {@link
 * DefaultTopicNamingStrategy} gives.
 *
 * <p>Why: Debezium's default builds a table's name again for every change event (the prefix and the
 * table's parts joined with a stream) before it looks the name up in a least-recently-used map that
 * bookkeeps every hit; in a drain that was 2.4% of the relay's CPU samples, for a name the relay
 * never publishes to (it routes each outbox row itself). Here a hit is one lookup in a plain
 * concurrent map.
 *
 * <p>The relay captures one table, so the map stays tiny; past {@value #MAX_CACHED} tables the
 * names are computed as Debezium computes them, uncached. A {@code debezium.topic.naming.strategy}
 * setting replaces this class.
 */
public final class CachedTopicNamingStrategy extends DefaultTopicNamingStrategy {

  /** How many tables' names are kept. */
  static final int MAX_CACHED = 1024;

  private final Map<DataCollectionId, String> names = new ConcurrentHashMap<>();

  /**
   * Creates the strategy; Debezium calls this with the connector's configuration.
   *
   * @param props the connector's configuration ({@code topic.prefix}, {@code topic.delimiter},
   *     ...), as for {@link DefaultTopicNamingStrategy}
   */
  public CachedTopicNamingStrategy(Properties props) {
    super(props);
  }

  /**
   * The topic of a table's change events, as {@link DefaultTopicNamingStrategy} names it.
   *
   * @param id the table
   * @return its topic name
   */
  @Override
  public String dataChangeTopic(DataCollectionId id) {
    String name = names.get(id);
    if (name != null) {
      return name;
    }
    name = super.dataChangeTopic(id);
    if (names.size() < MAX_CACHED) {
      names.putIfAbsent(id, name);
    }
    return name;
  }

  /** How many tables' names are kept. */
  int cachedCount() {
    return names.size();
  }
}
