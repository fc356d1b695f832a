package io.outboxrelay.idempotency.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Turns the user's client settings into the consumer's and the dead-letter producer's, refusing
 * settings that would break the delivery guarantees. Every problem is reported at once. Stateless.
 */
final class ConsumerSettings {

  private static final List<String> SHARED_PREFIXES =
      List.of("security.", "ssl.", "sasl.", "client.dns.lookup");

  private ConsumerSettings() {}

  /**
   * The consumer's settings: the user's, with {@code enable.auto.commit=false} and {@code
   * auto.offset.reset=earliest} unless set, and without deserializers (byte arrays are passed as
   * instances).
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
    requireByteArrays(
        settings,
        ByteArrayDeserializer.class,
        problems,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
    failOn(problems, "consumer");
    return settings;
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
