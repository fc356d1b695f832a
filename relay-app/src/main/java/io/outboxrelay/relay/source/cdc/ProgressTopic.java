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
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compacted, single-partition topic where an exactly-once relay commits its source position (a
 * binlog position, or a PostgreSQL WAL position) in the same Kafka transaction as the records
 * before it ({@code delivery.progress.topic}). One record per batch, keyed as the relay's row in
 * the offsets table ({@link OffsetKey}), whose value is the position in Debezium's offset form (the
 * {@code offset_val} the engine stores). Several relays share the topic, each under its own key;
 * compaction keeps the last position of each.
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
  private final Duration request;

  ProgressTopic(RelayConfig config) {
    this(config, REQUEST, false);
  }

  /**
   * For an operator command, which must answer in time: its clients give up their own requests
   * after {@code request} too, so that closing them does not wait for a request Kafka never
   * answered.
   *
   * @param config the relay configuration, with exactly-once delivery
   * @param request how long one request may take
   */
  ProgressTopic(RelayConfig config, Duration request) {
    this(config, request, true);
  }

  private ProgressTopic(RelayConfig config, Duration request, boolean bounded) {
    this.topic = config.delivery().progressTopic();
    this.key = OffsetKey.of(config.name()).getBytes(StandardCharsets.UTF_8);
    this.request = request;
    Map<String, Object> props =
        new HashMap<>(
            KafkaProbe.adminProperties(
                config.producer().asProperties(config.name()), config.name() + "-progress"));
    if (bounded) {
      String ms = String.valueOf(request.toMillis());
      props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
      props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    }
    this.clientProperties = Map.copyOf(props);
    this.context = config.logContext();
  }

  /** The topic's name. */
  String topic() {
    return topic;
  }

  /** The key of this relay's positions. */
  byte[] key() {
    return key.clone();
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
   * Reads the topic with {@code read_committed} up to the end it has when the read starts (its high
   * watermark): the last position this relay committed. When called after {@code
   * initTransactions()} of the relay's transactional id, which completes or aborts the transaction
   * a previous holder left open, the position read is final. The read waits for every transaction
   * before that end to be decided, also those of the relays of other tables that share the topic:
   * reading only up to the last stable offset would stop before this relay's later commits whenever
   * another relay's transaction was open before them.
   *
   * @param stop polled between reads; when it returns true the read is given up
   * @return the last committed position, empty when the relay committed none (or the topic does not
   *     exist); {@code null} when given up
   * @throws ExecutionException when Kafka fails
   * @throws TimeoutException when Kafka does not answer a request in time
   * @throws InterruptedException when interrupted
   * @throws org.apache.kafka.common.KafkaException when Kafka fails
   */
  Optional<String> readCommitted(BooleanSupplier stop)
      throws ExecutionException, TimeoutException, InterruptedException {
    TopicPartition partition = new TopicPartition(topic, 0);
    OptionalLong end = highWatermark(partition);
    if (end.isEmpty() || end.getAsLong() == 0) {
      return Optional.empty();
    }
    Map<String, Object> props = new HashMap<>();
    clientProperties.forEach(
        (k, v) -> {
          if (ConsumerConfig.configNames().contains(k)) {
            props.put(k, v);
          }
        });
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
    try {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      byte[] last = null;
      // read_committed: the position passes a transaction only once it is decided.
      while (consumer.position(partition, request) < end.getAsLong()) {
        if (stop.getAsBoolean()) {
          return null;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (Arrays.equals(r.key(), key)) {
            last = r.value(); // null: a tombstone deleted the position
          }
        }
      }
      return last == null
          ? Optional.empty()
          : Optional.of(new String(last, StandardCharsets.UTF_8));
    } finally {
      consumer.close(Duration.ZERO);
    }
  }

  /** The partition's high watermark, empty when the topic does not exist. */
  private OptionalLong highWatermark(TopicPartition partition)
      throws ExecutionException, TimeoutException, InterruptedException {
    Admin admin = Admin.create(clientProperties);
    try {
      return OptionalLong.of(
          admin
              .listOffsets(
                  Map.of(partition, OffsetSpec.latest()),
                  new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
              .partitionResult(partition)
              .get(secs(), TimeUnit.SECONDS)
              .offset());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return OptionalLong.empty();
      }
      throw e;
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  private long secs() {
    return Math.max(1, request.toSeconds());
  }
}
