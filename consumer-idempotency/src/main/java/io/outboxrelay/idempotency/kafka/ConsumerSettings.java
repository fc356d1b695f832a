package io.outboxrelay.idempotency.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the user's client settings into the consumer's and the dead-letter producer's, refusing
 * settings that would break the delivery guarantees. Every problem is reported at once. Stateless.
 */
final class ConsumerSettings {

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerSettings.class);

  static final String READ_COMMITTED = "read_committed";
  static final String READ_UNCOMMITTED = "read_uncommitted";

  private static final List<String> SHARED_PREFIXES =
      List.of("security.", "ssl.", "sasl.", "client.dns.lookup");

  private ConsumerSettings() {}

  /**
   * The consumer's settings: the user's, with {@code enable.auto.commit=false}, {@code
   * auto.offset.reset=earliest} and {@code isolation.level=read_committed} unless set, and without
   * deserializers (byte arrays are passed as instances). An explicit {@code
   * isolation.level=read_uncommitted} is kept, with the WARN of {@link #warnings}.
   *
   * @throws IllegalArgumentException naming every refused or missing setting
   */
  static Map<String, Object> consumer(Map<String, ?> user) {
    Map<String, Object> settings = new HashMap<>(user);
    List<String> problems = new ArrayList<>();
    requirePresent(settings, ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, problems);
    requirePresent(settings, ConsumerConfig.GROUP_ID_CONFIG, problems);
    Object autoCommit = settings.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
    if (autoCommit != null && !"false".equalsIgnoreCase(autoCommit.toString().trim())) {
      problems.add(
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG
              + "="
              + autoCommit
              + " is refused: the idempotent consumer commits offsets itself, only after the"
              + " database commit; remove it or set it to false");
    }
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    settings.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // Records of aborted transactions (a transactional producer such as an exactly-once relay or
    // Connect's exactly-once source tasks) were never meant to be read. Harmless for topics
    // without transactions: read_committed then reads exactly what read_uncommitted reads.
    settings.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, READ_COMMITTED);
    requireByteArrays(
        settings,
        ByteArrayDeserializer.class,
        problems,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
    failOn(problems, "consumer");
    for (String warning : warnings(settings)) {
      LOG.warn(
          "[idempotent-consumer group={}] {}",
          settings.get(ConsumerConfig.GROUP_ID_CONFIG),
          warning);
    }
    return settings;
  }

  /**
   * What is allowed but weakens what the consumer applies, one sentence each: an explicit {@code
   * isolation.level=read_uncommitted}, which delivers the records of aborted transactions too.
   *
   * @param consumer the consumer's settings, as {@link #consumer} returns them
   * @return the warnings, empty when there are none
   */
  static List<String> warnings(Map<String, Object> consumer) {
    Object isolation = consumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
    if (isolation != null && READ_UNCOMMITTED.equals(isolation.toString().trim())) {
      return List.of(
          ConsumerConfig.ISOLATION_LEVEL_CONFIG
              + "="
              + READ_UNCOMMITTED
              + ": records of aborted Kafka transactions are delivered and applied too (an"
              + " exactly-once relay's or Connect worker's aborted batches: records never"
              + " committed, whose events are mostly published again and then skipped as"
              + " duplicates); remove the setting to read committed records only");
    }
    return List.of();
  }

  /**
   * The dead-letter producer's settings: the consumer's bootstrap servers and security settings,
   * {@code acks=all} and idempotence, then the user's overrides.
   *
   * @throws IllegalArgumentException if an override weakens delivery or sets a serializer
   */
  static Map<String, Object> deadLetterProducer(
      Map<String, Object> consumer, Map<String, ?> overrides) {
    Map<String, Object> settings = new HashMap<>();
    for (Map.Entry<String, Object> entry : consumer.entrySet()) {
      String key = entry.getKey();
      if (key.equals(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)
          || SHARED_PREFIXES.stream().anyMatch(key::startsWith)) {
        settings.put(key, entry.getValue());
      }
    }
    settings.put(
        ProducerConfig.CLIENT_ID_CONFIG,
        consumer.get(ConsumerConfig.GROUP_ID_CONFIG) + "-dead-letter");
    settings.put(ProducerConfig.ACKS_CONFIG, "all");
    settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
    settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    // Records are sent one at a time anyway. With one request in flight, a first send to a
    // just-created dead-letter topic cannot be overtaken by the next one (KAFKA-15591: on brokers
    // before 4.5 the overtaken batch then fails with OUT_OF_ORDER_SEQUENCE_NUMBER until it
    // expires).
    settings.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    settings.putAll(overrides);
    List<String> problems = new ArrayList<>();
    Object acks = settings.get(ProducerConfig.ACKS_CONFIG);
    if (!"all".equals(String.valueOf(acks).trim()) && !"-1".equals(String.valueOf(acks).trim())) {
      problems.add("acks=" + acks + " is refused: a dead-lettered record must not be lost");
    }
    requireByteArrays(
        settings,
        ByteArraySerializer.class,
        problems,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
    failOn(problems, "dead-letter producer");
    return settings;
  }

  private static void requirePresent(Map<String, Object> settings, String key, List<String> out) {
    Object value = settings.get(key);
    if (value == null || value.toString().isBlank()) {
      out.add(key + " is required");
    }
  }

  private static void requireByteArrays(
      Map<String, Object> settings, Class<?> expected, List<String> out, String... keys) {
    for (String key : keys) {
      Object value = settings.remove(key);
      String name = value instanceof Class<?> type ? type.getName() : String.valueOf(value);
      if (value != null && !name.equals(expected.getName())) {
        out.add(key + "=" + name + " is refused: records are handled as raw bytes");
      }
    }
  }

  private static void failOn(List<String> problems, String what) {
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid " + what + " settings: " + String.join("; ", problems));
    }
  }
}
