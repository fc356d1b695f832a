package io.outboxrelay.relay.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The relay's Kafka producer settings: safe defaults, the user's {@code kafka.producer.*}
 * overrides, and the settings the relay owns. Refuses overrides that would weaken delivery.
 * Immutable and thread-safe.
 */
public final class ProducerSettings {

  /**
   * In CDC mode the producer never gives up on a record: it retries each one until Kafka takes it,
   * in order. A record that expired inside the producer would let later records of the same key
   * overtake it when it is re-sent, so expiry is effectively disabled; the relay warns while Kafka
   * is unreachable instead. Polling mode needs a bound: a batch waits for it (its lease renewed
   * meanwhile) before its unacknowledged events go back to the table.
   */
  static final String CDC_DELIVERY_TIMEOUT_MS = String.valueOf(Integer.MAX_VALUE);

  /** Polling mode's bound on one record's delivery: how long a batch waits for Kafka at most. */
  static final String POLLING_DELIVERY_TIMEOUT_MS = "30000";

  private static final Set<String> OWNED =
      Set.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

  private final RelayMode mode;
  private final String bootstrapServers;
  private final Map<String, String> overrides;

  /**
   * Creates the settings.
   *
   * @param mode the relay mode, which picks some defaults
   * @param bootstrapServers the bootstrap servers
   * @param overrides the {@code kafka.producer.*} entries without the prefix; {@code acks} is taken
   *     in any case ({@code ALL} is {@code all})
   */
  public ProducerSettings(RelayMode mode, String bootstrapServers, Map<String, String> overrides) {
    this.mode = mode;
    this.bootstrapServers = bootstrapServers;
    Map<String, String> copy = new LinkedHashMap<>(overrides);
    // Kafka accepts acks only in lower case; ALL means all, so take it in any case.
    copy.computeIfPresent(ProducerConfig.ACKS_CONFIG, (k, v) -> v.trim().toLowerCase(Locale.ROOT));
    this.overrides = Collections.unmodifiableMap(copy);
  }

  /** Reads {@code kafka.bootstrap.servers} (empty when unset) and takes the overrides. */
  static ProducerSettings from(ConfigValues v, Map<String, String> overrides) {
    String servers = v.get(RelayConfigKeys.KAFKA_BOOTSTRAP_SERVERS);
    return new ProducerSettings(v.mode(), servers == null ? "" : servers, overrides);
  }

  /**
   * The relay's defaults for a mode; each may be overridden unless {@link #problems} refuses the
   * value.
   *
   * @param mode the relay mode
   * @return an unmodifiable map, in documentation order
   */
  public static Map<String, String> defaults(RelayMode mode) {
    Map<String, String> d = new LinkedHashMap<>();
    d.put(ProducerConfig.ACKS_CONFIG, "all");
    d.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // One request in flight per broker: brokers before the fix of KAFKA-15591 (apache/kafka
    // #23234) can accept an idempotent producer's second request to a new partition after its
    // first failed, and the first then retries forever. With one in flight a retry always goes
    // before the next request. Requests still carry whole batches, so throughput holds; raise it
    // (up to 5) on brokers with the fix.
    d.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    // The relay sends a whole batch and then waits for it, so waiting for more records to fill
    // producer batches only adds latency; what is sent during a batch still batches naturally.
    d.put(ProducerConfig.LINGER_MS_CONFIG, "1");
    d.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    // No compression: each producer batch of a compressed topic gets a new LZ4 stream with 128 KB
    // of buffers, and at steady rates a batch holds one or two events. At 2,000 events/s that was
    // half of everything the relay allocated, and its garbage collections; a user whose network
    // or disk is short can set kafka.producer.compression.type.
    d.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    d.put(
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
        mode == RelayMode.CDC ? CDC_DELIVERY_TIMEOUT_MS : POLLING_DELIVERY_TIMEOUT_MS);
    d.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    d.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
    return Collections.unmodifiableMap(d);
  }

  /**
   * What is wrong with the overrides: unknown settings, values Kafka rejects, and values that would
   * weaken delivery. Each problem is one line naming the full key.
   *
   * @return the problems, empty when the overrides are acceptable
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    Set<String> known = ProducerConfig.configNames();
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      String key = RelayConfigKeys.KAFKA_PRODUCER_PREFIX + e.getKey();
      String value = e.getValue().trim();
      if (OWNED.contains(e.getKey())) {
        problems.add(
            key
                + " is set by the relay"
                + (e.getKey().equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)
                    ? ": use " + RelayConfigKeys.KAFKA_BOOTSTRAP_SERVERS.name()
                    : " (records are bytes): remove it"));
      } else if (e.getKey().equals(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
        problems.add(
            key
                + " is set by the relay: use "
                + RelayConfigKeys.DELIVERY_TRANSACTIONAL_ID.name()
                + " (with "
                + RelayConfigKeys.DELIVERY_GUARANTEE.name()
                + "=exactly-once)");
      } else if (!known.contains(e.getKey())) {
        problems.add(key + " is not a Kafka producer setting: check the spelling or remove it");
      } else if (e.getKey().equals(ProducerConfig.ACKS_CONFIG)
          && !(value.equals("all") || value.equals("-1"))) {
        problems.add(
            key
                + "="
                + value
                + " lets Kafka acknowledge events a broker failure can lose: remove it (the"
                + " relay needs acks=all)");
      } else if (e.getKey().equals(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
          && !value.equalsIgnoreCase("true")) {
        problems.add(
            key
                + "="
                + value
                + " allows duplicates and reordering on retries: remove it (the relay needs"
                + " enable.idempotence=true)");
      } else if (e.getKey().equals(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)
          && parsesAbove(value, 5)) {
        problems.add(
            key + "=" + value + " breaks ordering with idempotence: use a value from 1 to 5");
      } else if (e.getKey().equals(ProducerConfig.RETRIES_CONFIG) && value.equals("0")) {
        problems.add(key + "=0 turns every transient broker error into a failure: remove it");
      }
    }
    if (problems.isEmpty()) {
      try {
        ProducerConfig.configDef().parse(asProperties("outbox-relay-validation"));
      } catch (org.apache.kafka.common.config.ConfigException e) {
        problems.add("kafka.producer.*: " + e.getMessage());
      }
    }
    return problems;
  }

  private static boolean parsesAbove(String value, int limit) {
    try {
      return Integer.parseInt(value) > limit;
    } catch (NumberFormatException e) {
      return false; // Kafka's own validation reports it
    }
  }

  /**
   * The complete producer configuration: defaults, then overrides, then the owned settings.
   *
   * @param clientId the producer's client.id unless overridden
   * @return a fresh mutable map
   */
  public Map<String, Object> asProperties(String clientId) {
    Map<String, Object> props = new LinkedHashMap<>(defaults(mode));
    props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    overrides.forEach((k, v) -> props.put(k, v.trim()));
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /**
   * The bootstrap servers.
   *
   * @return the servers
   */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * The user's overrides, without the prefix.
   *
   * @return an unmodifiable map
   */
  public Map<String, String> overrides() {
    return overrides;
  }

  /**
   * A setting's effective value as text.
   *
   * @param key the producer setting
   * @return the override or the relay default, or {@code null} when neither sets it
   */
  public String effective(String key) {
    String v = overrides.get(key);
    return v != null ? v.trim() : defaults(mode).get(key);
  }

  @Override
  public String toString() {
    return "ProducerSettings[bootstrapServers=" + bootstrapServers + "]";
  }
}
