package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.util.SafeObjectInputStream;

/**
 * A Kafka Connect source connector's last committed offset, read where Connect keeps it: the
 * offsets topic of a distributed cluster ({@code offset.storage.topic}), or the offsets file of a
 * standalone worker or of Debezium Server ({@code offset.storage.file.filename}, written by Kafka's
 * {@code FileOffsetBackingStore}).
 *
 * <p>Both hold pairs of JSON bytes: the key {@code ["<connector>",{<source partition>}]} and the
 * offset (for Debezium's binlog connectors the partition is {@code {"server":"<topic.prefix>"}}).
 * In the topic the last record of a key wins and a record without a value deletes it; the file is
 * the map as it was last flushed. Stateless.
 */
public final class ConnectOffsets {

  /** How long reading the offsets topic may take before the command gives up. */
  static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(60);

  /**
   * One connector's offset for one source partition.
   *
   * @param connector the connector's name
   * @param partition the source partition, e.g. {@code {"server":"dbserver1"}}
   * @param offset the offset, in stored order
   * @param where where it was read, for messages
   */
  public record Found(
      String connector, Map<String, Object> partition, Map<String, Object> offset, String where) {

    /**
     * The Debezium {@code topic.prefix} of a binlog connector's partition.
     *
     * @return the prefix, or null
     */
    public String server() {
      Object s = partition.get("server");
      return s == null ? null : s.toString();
    }
  }

  private ConnectOffsets() {}

  /**
   * The connector's offset in the offsets topic of a distributed Connect cluster: every record read
   * from the beginning to the end offsets of each partition as they were when the read began.
   *
   * @param consumerSettings the consumer's connection settings (bootstrap servers, security)
   * @param topic the offsets topic
   * @param connector the connector's name
   * @return the offset
   * @throws AdminException (exit 2) when the topic does not exist or holds no offset of the
   *     connector, or holds several; (exit 1) when Kafka cannot be read
   */
  public static Found fromTopic(
      Map<String, Object> consumerSettings, String topic, String connector) throws AdminException {
    Map<String, Object> props = new HashMap<>(consumerSettings);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "outbox-relay-position-import");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    String where = "offsets topic " + topic;
    Map<ByteBuffer, byte[]> latest = new LinkedHashMap<>();
    long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, TOPIC_TIMEOUT);
      if (infos == null || infos.isEmpty()) {
        throw AdminException.usage(
            "topic "
                + topic
                + " does not exist on "
                + props.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)
                + ": give the offset.storage.topic of the Connect cluster that ran the connector;"
                + " nothing was changed");
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TOPIC_TIMEOUT);
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw AdminException.failure(
              "reading " + where + " took more than " + TOPIC_TIMEOUT + "; nothing was changed",
              null);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.key() == null) {
            continue;
          }
          ByteBuffer key = ByteBuffer.wrap(r.key());
          latest.remove(key); // keeps the map in the order of the last write
          latest.put(key, r.value());
        }
      }
    } catch (KafkaException e) {
      throw AdminException.failure(
          "cannot read " + where + ": " + Connections.oneLine(e) + "; nothing was changed", e);
    }
    return pick(latest, connector, where);
  }

  private static boolean reached(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The connector's offset in an offsets file written by Kafka's {@code FileOffsetBackingStore} (a
   * Connect standalone worker's, or Debezium Server's): a Java-serialised map of key bytes to value
   * bytes, read with Kafka's own filtering object stream as the store reads it.
   *
   * @param file the file
   * @param connector the connector's name
   * @return the offset
   * @throws AdminException (exit 2) when the file cannot be read, is not such a file, or holds no
   *     offset of the connector, or several
   */
  public static Found fromFile(Path file, String connector) throws AdminException {
    String where = "offsets file " + file;
    Object read;
    try (InputStream in = Files.newInputStream(file);
        SafeObjectInputStream objects = new SafeObjectInputStream(in)) {
      read = objects.readObject();
    } catch (NoSuchFileException e) {
      throw AdminException.usage(
          "there is no file " + file + ": give the connector's offset.storage.file.filename", e);
    } catch (IOException | ClassNotFoundException | RuntimeException e) {
      throw AdminException.usage(
          file
              + " is not an offsets file of Kafka's FileOffsetBackingStore: "
              + Connections.oneLine(e)
              + "; nothing was changed",
          e);
    }
    if (!(read instanceof Map<?, ?> raw)) {
      throw AdminException.usage(
          file
              + " is not an offsets file of Kafka's FileOffsetBackingStore (it holds a "
              + (read == null ? "null" : read.getClass().getName())
              + "); nothing was changed");
    }
    Map<ByteBuffer, byte[]> pairs = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : raw.entrySet()) {
      if (e.getKey() instanceof byte[] k) {
        pairs.put(ByteBuffer.wrap(k), e.getValue() instanceof byte[] v ? v : null);
      }
    }
    return pick(pairs, connector, where);
  }

  /** The one live offset of the connector among the pairs. */
  private static Found pick(Map<ByteBuffer, byte[]> pairs, String connector, String where)
      throws AdminException {
    List<Found> found = new ArrayList<>();
    TreeSet<String> others = new TreeSet<>();
    for (Map.Entry<ByteBuffer, byte[]> e : pairs.entrySet()) {
      JsonNode key = parse(e.getKey());
      if (key == null || !key.isArray() || key.size() != 2 || !key.get(1).isObject()) {
        continue; // not a source offset
      }
      String name = key.get(0).asText();
      if (!name.equals(connector)) {
        if (e.getValue() != null) {
          others.add(name);
        }
        continue;
      }
      if (e.getValue() == null) {
        continue; // deleted
      }
      Map<String, Object> offset = map(e.getValue(), where);
      if (offset != null) {
        found.add(
            new Found(
                connector,
                Json.MAPPER.convertValue(key.get(1), new TypeReference<Map<String, Object>>() {}),
                offset,
                where));
      }
    }
    if (found.isEmpty()) {
      throw AdminException.usage(
          where
              + " holds no offset of connector '"
              + connector
              + "'"
              + (others.isEmpty() ? "" : " (it has offsets of " + String.join(", ", others) + ")")
              + ": give the connector's name as Connect knows it; nothing was changed");
    }
    if (found.size() > 1) {
      List<Map<String, Object>> partitions = found.stream().map(Found::partition).toList();
      throw AdminException.usage(
          where
              + " holds offsets of connector '"
              + connector
              + "' for "
              + found.size()
              + " source partitions "
              + partitions
              + ": the relay continues one binlog connector of one table; nothing was changed");
    }
    return found.get(0);
  }

  private static JsonNode parse(ByteBuffer bytes) {
    try {
      return Json.MAPPER.readTree(
          new String(
              bytes.array(), bytes.arrayOffset(), bytes.remaining(), StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static Map<String, Object> map(byte[] value, String where) throws AdminException {
    try {
      JsonNode n = Json.MAPPER.readTree(value);
      if (n == null || !n.isObject()) {
        return null;
      }
      return Json.MAPPER.convertValue(n, new TypeReference<LinkedHashMap<String, Object>>() {});
    } catch (IOException e) {
      throw AdminException.usage(
          where
              + " holds an offset that is not JSON ("
              + Connections.oneLine(e)
              + "): the worker's internal converters must be JSON; nothing was changed",
          e);
    }
  }

  /**
   * Consumer settings from the relay's Kafka settings: its brokers and security, nothing else.
   *
   * @param bootstrapServers the brokers
   * @param overrides the relay's {@code kafka.producer.*} settings
   * @return the settings
   */
  public static Map<String, Object> consumerSettings(
      String bootstrapServers, Map<String, String> overrides) {
    Map<String, Object> props = new HashMap<>();
    Properties security = new Properties();
    overrides.forEach(
        (k, v) -> {
          if (k.startsWith("security.")
              || k.startsWith("sasl.")
              || k.startsWith("ssl.")
              || k.equals("client.dns.lookup")) {
            security.put(k, v);
          }
        });
    security.forEach((k, v) -> props.put(k.toString(), v));
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return props;
  }
}
