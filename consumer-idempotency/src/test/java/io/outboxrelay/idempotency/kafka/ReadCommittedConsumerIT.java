package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.testing.TestDatabase;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer's isolation level against a real transactional producer on the real broker, as an
 * exactly-once relay writes: a transaction of {@code e1}, {@code e2} and {@code x1} is aborted,
 * then {@code e1}, {@code e2} and {@code e3} are published again and committed. With the default
 * settings the consumer applies exactly the committed events, once each and in order; only an
 * explicit {@code isolation.level=read_uncommitted} applies the aborted records too ({@code x1},
 * never committed) and skips the committed copies of {@code e1} and {@code e2} as duplicates.
 */
class ReadCommittedConsumerIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private final List<IdempotentConsumer> consumers = new ArrayList<>();
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<TestDatabase> databases = new ArrayList<>();
  private KafkaBroker kafka;
  private String topic;
  private String unique;

  @BeforeEach
  void setUp() {
    kafka = LocalStack.shared().kafka();
    unique = Long.toHexString(System.nanoTime());
    topic = "idem-tx-" + unique;
    kafka.createTopic(topic, 1);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    consumers.forEach(IdempotentConsumer::close);
    executor.shutdownNow();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    databases.forEach(TestDatabase::close);
  }

  @Test
  void appliesOnlyCommittedRecordsByDefaultAndAbortedOnesOnlyWithAnExplicitReadUncommitted()
      throws Exception {
    // The default consumer runs while the transactions are written: it must not deliver what is
    // undecided, and never what was aborted.
    TestDatabase committedDb = database();
    Deliveries byDefault = new Deliveries();
    start(committedDb, "group-committed-" + unique, Map.of(), byDefault);
    await().atMost(WAIT).untilTrue(byDefault.assigned);

    try (KafkaProducer<byte[], byte[]> producer = transactionalProducer()) {
      producer.initTransactions();
      producer.beginTransaction();
      send(producer, "e1", "e2", "x1");
      producer.flush(); // in the log before the abort: a read_uncommitted consumer sees them
      producer.abortTransaction();
      producer.beginTransaction();
      send(producer, "e1", "e2", "e3");
      producer.commitTransaction();
    }
    assertThat(endOffset())
        .as("three aborted records, a marker, three committed records, a marker")
        .isEqualTo(8);

    await().atMost(WAIT).until(() -> byDefault.ids().contains("e3"));
    assertThat(byDefault.entries())
        .as("what the default consumer delivered, in order")
        .containsExactly("e1 PROCESSED", "e2 PROCESSED", "e3 PROCESSED");
    assertThat(effects(committedDb, "e1", "e2", "e3", "x1")).containsExactly(1L, 1L, 1L, 0L);
    assertThat(committedDb.allEffects()).isEqualTo(3);

    TestDatabase uncommittedDb = database();
    Deliveries uncommitted = new Deliveries();
    start(
        uncommittedDb,
        "group-uncommitted-" + unique,
        Map.of("isolation.level", "read_uncommitted"),
        uncommitted);
    await().atMost(WAIT).until(() -> uncommitted.ids().contains("e3"));
    assertThat(uncommitted.entries())
        .as("what an explicit read_uncommitted consumer delivered, in order")
        .containsExactly(
            "e1 PROCESSED",
            "e2 PROCESSED",
            "x1 PROCESSED",
            "e1 DUPLICATE",
            "e2 DUPLICATE",
            "e3 PROCESSED");
    assertThat(effects(uncommittedDb, "e1", "e2", "e3", "x1")).containsExactly(1L, 1L, 1L, 1L);
  }

  // ---------------------------------------------------------------- helpers

  private TestDatabase database() {
    TestDatabase db = TestDatabase.mariaDb("idemtx");
    databases.add(db);
    return db;
  }

  private void start(
      TestDatabase db, String group, Map<String, String> extra, ConsumerListener listener) {
    Map<String, Object> properties = new HashMap<>(extra);
    properties.put("bootstrap.servers", kafka.bootstrapServers());
    properties.put("group.id", group);
    IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafkaProperties(properties)
            .topics(topic)
            .processor(IdempotentProcessor.builder(db.dataSource(), group).build())
            .handler((record, connection) -> TestDatabase.applyEffect(connection, id(record), 1))
            .listener(listener)
            .pollTimeout(Duration.ofMillis(100))
            .build();
    consumers.add(consumer);
    executor.submit(consumer::run);
  }

  private KafkaProducer<byte[], byte[]> transactionalProducer() {
    return new KafkaProducer<>(
        Map.of(
            "bootstrap.servers",
            kafka.bootstrapServers(),
            "transactional.id",
            "tx-" + unique,
            "acks",
            "all"),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private void send(KafkaProducer<byte[], byte[]> producer, String... ids) throws Exception {
    for (String id : ids) {
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>(topic, bytes("o-1"), bytes("{\"event\":\"" + id + "\"}"));
      record.headers().add("id", bytes(id));
      record.headers().add("event_type", bytes("OrderUpdated"));
      record.headers().add("aggregate_type", bytes("order"));
      record.headers().add("aggregate_id", bytes("o-1"));
      producer.send(record).get(30, TimeUnit.SECONDS);
    }
  }

  private long endOffset() throws Exception {
    TopicPartition partition = new TopicPartition(topic, 0);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      return admin
          .listOffsets(Map.of(partition, OffsetSpec.latest()))
          .partitionResult(partition)
          .get(30, TimeUnit.SECONDS)
          .offset();
    }
  }

  private static List<Long> effects(TestDatabase db, String... ids) throws Exception {
    List<Long> counts = new ArrayList<>();
    for (String id : ids) {
      counts.add(db.effects(id));
    }
    return counts;
  }

  private static String id(ConsumerRecord<byte[], byte[]> record) {
    return new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Every record the loop finished, as "id OUTCOME", in the order it finished them. */
  private static final class Deliveries implements ConsumerListener {

    final AtomicBoolean assigned = new AtomicBoolean();
    private final List<String> entries = new CopyOnWriteArrayList<>();

    @Override
    public void afterDatabaseCommit(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
      entries.add(id(record) + " " + outcome);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (!partitions.isEmpty()) {
        assigned.set(true);
      }
    }

    List<String> entries() {
      return List.copyOf(entries);
    }

    List<String> ids() {
      return entries.stream().map(e -> e.substring(0, e.indexOf(' '))).toList();
    }
  }
}
