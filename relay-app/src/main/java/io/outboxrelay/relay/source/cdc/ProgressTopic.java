package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.publish.KafkaProbe;
import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import io.outboxrelay.router.RoutedRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compacted, single-partition topic where an exactly-once relay commits its binlog position in
 * the same Kafka transaction as the records before it ({@code delivery.progress.topic}). One record
 * per batch, keyed as the relay's row in the offsets table ({@link OffsetKey}), whose value is the
 * position in Debezium's offset form (the {@code offset_val} the engine stores). Several relays
 * share the topic, each under its own key; compaction keeps the last position of each.
 *
 * <p>Read with {@code isolation.level=read_committed} after {@code initTransactions()}: the last
 * committed position of the key is where the records in Kafka end, whatever the database's offsets
 * table says. Stateless apart from its settings; thread-safe.
 */
final class ProgressTopic {

  private static final Logger LOG = LoggerFactory.getLogger(ProgressTopic.class);

  /** How long one admin or read request may take before it is tried again. */
  private static final Duration REQUEST = Duration.ofSeconds(15);

  private final String topic;
  private final byte[] key;
  private final Map<String, Object> clientProperties;
  private final String context;

  ProgressTopic(RelayConfig config) {
    this.topic = config.delivery().progressTopic();
    this.key = OffsetKey.of(config.name()).getBytes(StandardCharsets.UTF_8);
    this.clientProperties =
        KafkaProbe.adminProperties(
            config.producer().asProperties(config.name()), config.name() + "-progress");
    this.context = config.logContext();
  }

  /** The topic's name. */
  String topic() {
    return topic;
  }

  /**
   * The record committing {@code position} for this relay.
   *
   * @param position the offset JSON
   * @return the record for the progress topic
   */
  RoutedRecord record(String position) {
    return new RoutedRecord(topic, key, List.of(), position.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Creates the topic when it does not exist (one partition, compacted, replicated up to three
   * times), and refuses one that would lose or reorder positions.
   *
   * @throws RelayFailure when the topic has more than one partition or is not compacted, or the
   *     relay may not create it
   * @throws ExecutionException when Kafka fails otherwise (worth trying again)
   * @throws TimeoutException when Kafka does not answer in time
   * @throws InterruptedException when interrupted
   */
  void ensureExists() throws ExecutionException, TimeoutException, InterruptedException {
    try (Admin admin = Admin.create(clientProperties)) {
      Optional<TopicDescription> described = describe(admin);
      if (described.isEmpty()) {
        int brokers = admin.describeCluster().nodes().get(secs(), TimeUnit.SECONDS).size();
        short replicas = (short) Math.max(1, Math.min(3, brokers));
        Map<String, String> configs = new HashMap<>();
        configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        if (replicas > 1) {
          configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(replicas - 1));
        }
        try {
          admin
              .createTopics(List.of(new NewTopic(topic, 1, replicas).configs(configs)))
              .all()
              .get(secs(), TimeUnit.SECONDS);
          LOG.info(
              "[{}] created the progress topic {} (1 partition, compacted, replication factor {})",
              context,
              topic,
              replicas);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof TopicExistsException) {
            return; // another relay created it meanwhile
          }
          if (e.getCause()
              instanceof org.apache.kafka.common.errors.AuthorizationException denied) {
            throw new RelayFailure(
                "the progress topic "
                    + topic
                    + " (delivery.progress.topic) does not exist and the relay may not create it ("
                    + denied.getMessage()
                    + "): create it with one partition and cleanup.policy=compact, or grant"
                    + " Create on it",
                denied);
          }
          throw e;
        }
        return;
      }
      TopicDescription d = described.get();
      String problem = null;
      if (d.partitions().size() != 1) {
        problem = "has " + d.partitions().size() + " partitions";
      } else if (!compacted(admin)) {
        problem = "is not compacted";
      }
      if (problem != null) {
        throw new RelayFailure(
            "the progress topic "
                + topic
                + " (delivery.progress.topic) "
                + problem
                + ": it needs one partition and cleanup.policy=compact, or positions are lost or"
                + " read out of order; name another topic, the relay creates it",
            null);
      }
    }
  }

  private Optional<TopicDescription> describe(Admin admin)
      throws ExecutionException, TimeoutException, InterruptedException {
    try {
      return Optional.of(
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(secs(), TimeUnit.SECONDS)
              .get(topic));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private boolean compacted(Admin admin)
      throws ExecutionException, TimeoutException, InterruptedException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config =
        admin.describeConfigs(List.of(resource)).all().get(secs(), TimeUnit.SECONDS).get(resource);
    ConfigEntry policy = config == null ? null : config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    return policy != null && policy.value() != null && policy.value().contains("compact");
  }

  /**
   * Reads the topic to its end with {@code read_committed}: the last position this relay committed.
   * Call it after {@code initTransactions()} of the relay's transactional id, which completes or
   * aborts the transaction a previous holder left open, so that the end is final.
   *
   * @param stop polled between reads; when it returns true the read is given up
   * @return the last committed position, empty when the relay committed none; {@code null} when
   *     given up
   * @throws org.apache.kafka.common.KafkaException when Kafka fails
   */
  Optional<String> readCommitted(BooleanSupplier stop) {
    Map<String, Object> props = new HashMap<>();
    clientProperties.forEach(
        (k, v) -> {
          if (ConsumerConfig.configNames().contains(k)) {
            props.put(k, v);
          }
        });
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    TopicPartition partition = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      // With read_committed, the end is the last stable offset: nothing after it is decided.
      long end = consumer.endOffsets(List.of(partition), REQUEST).get(partition);
      byte[] last = null;
      boolean found = false;
      while (consumer.position(partition, REQUEST) < end) {
        if (stop.getAsBoolean()) {
          return null;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.offset() < end && Arrays.equals(r.key(), key)) {
            last = r.value();
            found = true;
          }
        }
      }
      return found && last != null
          ? Optional.of(new String(last, StandardCharsets.UTF_8))
          : Optional.empty();
    }
  }

  private static long secs() {
    return REQUEST.toSeconds();
  }
}
