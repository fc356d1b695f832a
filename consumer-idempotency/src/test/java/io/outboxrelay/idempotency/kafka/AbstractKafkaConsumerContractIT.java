package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.EventRef;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.SchemaMigrationRequiredException;
import io.outboxrelay.idempotency.testing.TestDatabase;
import io.outboxrelay.testsupport.stack.ChildProcess;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Kafka consumer contract: real broker, real database, one effect per event id whatever Kafka
 * delivers. A subclass of about twenty lines supplies the database.
 */
abstract class AbstractKafkaConsumerContractIT {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AtomicInteger TESTS = new AtomicInteger();

  /** A fresh database with the schema of {@code config/<dialect>/processed-events.sql}. */
  protected abstract TestDatabase newDatabase();

  protected TestDatabase db;
  protected KafkaBroker kafka;
  protected String topic;
  protected String group;
  private KafkaProducer<byte[], byte[]> producer;
  private final List<IdempotentConsumer> consumers = new ArrayList<>();
  private final List<ChildProcess> children = new ArrayList<>();
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @BeforeEach
  void setUp() {
    kafka = LocalStack.shared().kafka();
    db = newDatabase();
    String unique = TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime());
    topic = "idem-" + unique;
    group = "group-" + unique;
    producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "acks",
                "all",
                // KAFKA-15591 (fixed in brokers 4.5): two batches in flight to a just-created
                // partition can be reordered and the first then fails forever with
                // OUT_OF_ORDER_SEQUENCE_NUMBER. One in flight avoids it.
                "max.in.flight.requests.per.connection",
                "1"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    consumers.forEach(IdempotentConsumer::close);
    children.forEach(ChildProcess::close);
    executor.shutdownNow();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    producer.close(Duration.ofSeconds(5));
    db.close();
  }

  // ---------------------------------------------------------------- tests

  @Test
  void appliesEachEventOnceThoughSomeWerePublishedTwiceAndCommitsOffsetsOnlyAfterTheDatabase()
      throws Exception {
    kafka.createTopic(topic, 3);
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      records.add(event("e" + i, "o-" + (i % 7)));
    }
    for (int i = 0; i < 10; i++) {
      records.add(event("e" + i, "o-" + (i % 7))); // re-published: same id, later offset
    }
    publish(records);
    CommitLog log = new CommitLog();

    IdempotentConsumer consumer = start(consumerBuilder().listener(log));

    await()
        .atMost(WAIT)
        .until(
            () -> consumer.counters().processed() == 30 && consumer.counters().duplicates() == 10);
    await().atMost(WAIT).until(() -> committedTotal() == 40);
    assertThat(db.allEffects()).isEqualTo(30);
    assertThat(db.distinctEffects()).isEqualTo(30);
    log.assertEveryOffsetCommitFollowsTheDatabaseCommitsItCovers();
  }

  @Test
  void appliesEachEventOnceAcrossARebalance() throws Exception {
    kafka.createTopic(topic, 4);
    publish(events(0, 40));
    IdempotentConsumer first = start(consumerBuilder());
    await().atMost(WAIT).until(() -> first.counters().processed() > 0);
    Set<TopicPartition> secondsPartitions = ConcurrentHashMap.newKeySet();

    IdempotentConsumer second =
        start(
            consumerBuilder()
                .listener(
                    new ConsumerListener() {
                      @Override
                      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        secondsPartitions.addAll(partitions);
                      }
                    }));
    publish(events(30, 50)); // re-published while the group rebalances
    await().atMost(WAIT).until(() -> !secondsPartitions.isEmpty());
    publish(events(40, 80));
    publish(events(70, 80)); // and after

    await().atMost(WAIT).until(() -> committedTotal() == 110);
    assertThat(db.distinctEffects()).isEqualTo(80);
    assertThat(db.allEffects()).isEqualTo(80);
    assertThat(first.counters().processed() + second.counters().processed()).isEqualTo(80);
    // At least the 30 re-published records; a redelivery after a failed commit adds more.
    assertThat(first.counters().duplicates() + second.counters().duplicates())
        .isGreaterThanOrEqualTo(30);
    assertThat(second.counters().processed()).as("the second consumer took part").isPositive();
  }

  @Test
  void retriesAFailingRecordWithBackoffThenDeadLettersItAndARecordWithoutId() throws Exception {
    kafka.createTopic(topic, 1);
    String deadLetterTopic = topic + ".dlq";
    kafka.createTopic(deadLetterTopic, 1);
    ProducerRecord<byte[], byte[]> noId =
        new ProducerRecord<>(topic, bytes("o-1"), bytes("{\"no\":\"id\"}"));
    publish(List.of(event("ok-1", "o-1"), event("bad", "o-1"), noId, event("ok-2", "o-1")));
    List<Long> attemptTimes = new ArrayList<>();
    List<Duration> retryDelays = new ArrayList<>();

    IdempotentConsumer consumer =
        start(
            consumerBuilder()
                .handler(
                    (record, connection) -> {
                      if (id(record).equals("bad")) {
                        attemptTimes.add(System.nanoTime());
                        throw new IllegalStateException("order o-1 is closed");
                      }
                      TestDatabase.applyEffect(connection, id(record), 1);
                    })
                .retryPolicy(new RetryPolicy(3, Duration.ofMillis(200), Duration.ofMillis(300)))
                .failurePolicy(FailurePolicy.deadLetter(deadLetterTopic))
                .listener(
                    new ConsumerListener() {
                      @Override
                      public void onRetry(
                          ConsumerRecord<byte[], byte[]> record,
                          Throwable error,
                          int failedAttempts,
                          Duration delay) {
                        retryDelays.add(delay);
                      }
                    }));

    List<ConsumedRecord> dead =
        TopicReader.forTopics(kafka.bootstrapServers(), deadLetterTopic)
            .readUntil(r -> r.size() >= 2, WAIT);
    await().atMost(WAIT).until(() -> committedTotal() == 4);

    assertThat(dead).hasSize(2);
    ConsumedRecord bad = dead.get(0);
    assertThat(bad.header("id")).isEqualTo("bad");
    assertThat(bad.keyAsString()).isEqualTo("o-1");
    assertThat(bad.valueAsString()).isEqualTo("{\"order\":\"bad\"}");
    assertThat(bad.header("event_type")).isEqualTo("OrderUpdated");
    assertThat(bad.header(FailurePolicy.HEADER_ERROR_CLASS))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(bad.header(FailurePolicy.HEADER_ERROR_MESSAGE)).isEqualTo("order o-1 is closed");
    assertThat(bad.header(FailurePolicy.HEADER_ORIGINAL_TOPIC)).isEqualTo(topic);
    assertThat(bad.header(FailurePolicy.HEADER_ORIGINAL_PARTITION)).isEqualTo("0");
    assertThat(bad.header(FailurePolicy.HEADER_ORIGINAL_OFFSET)).isEqualTo("1");
    assertThat(bad.header(FailurePolicy.HEADER_CONSUMER_GROUP)).isEqualTo(group);
    assertThat(bad.header(FailurePolicy.HEADER_ATTEMPTS)).isEqualTo("3");
    ConsumedRecord poison = dead.get(1);
    assertThat(poison.header(FailurePolicy.HEADER_ERROR_CLASS))
        .isEqualTo(PoisonRecordException.class.getName());
    assertThat(poison.header(FailurePolicy.HEADER_ORIGINAL_OFFSET)).isEqualTo("2");
    assertThat(poison.header(FailurePolicy.HEADER_ATTEMPTS)).isEqualTo("1");

    assertThat(retryDelays).containsExactly(Duration.ofMillis(200), Duration.ofMillis(300));
    assertThat(attemptTimes).hasSize(3);
    assertThat(attemptTimes.get(1) - attemptTimes.get(0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
    assertThat(attemptTimes.get(2) - attemptTimes.get(1))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
    assertThat(db.effects("ok-1")).isEqualTo(1);
    assertThat(db.effects("ok-2")).isEqualTo(1);
    assertThat(db.isRecorded(group, "bad")).isFalse();
    assertThat(consumer.counters().deadLettered()).isEqualTo(2);
    assertThat(consumer.counters().failures()).isEqualTo(4);
  }

  @Test
  void stopsAtARecordThatKeepsFailingAndResumesThereAfterARestart() throws Exception {
    kafka.createTopic(topic, 1);
    publish(List.of(event("ok-1", "o-1"), event("bad", "o-1"), event("ok-2", "o-1")));
    AtomicInteger attempts = new AtomicInteger();
    IdempotentConsumer consumer =
        consumerBuilder()
            .handler(
                (record, connection) -> {
                  if (id(record).equals("bad")) {
                    attempts.incrementAndGet();
                    throw new IllegalStateException("order o-1 is closed");
                  }
                  TestDatabase.applyEffect(connection, id(record), 1);
                })
            .retryPolicy(new RetryPolicy(2, Duration.ofMillis(50), Duration.ofMillis(50)))
            .failurePolicy(FailurePolicy.stop())
            .build();
    consumers.add(consumer);

    ConsumerStoppedException stopped = runUntilStopped(consumer);

    assertThat(stopped.eventId()).isEqualTo("bad");
    assertThat(stopped.offset()).isEqualTo(1);
    assertThat(stopped).hasMessageContaining("STOP").hasRootCauseMessage("order o-1 is closed");
    assertThat(attempts).hasValue(2);
    assertThat(db.effects("ok-1")).isEqualTo(1);
    assertThat(db.effects("ok-2")).isZero();
    assertThat(committedTotal()).isEqualTo(1);

    IdempotentConsumer restarted = start(consumerBuilder());
    await().atMost(WAIT).until(() -> committedTotal() == 3);
    assertThat(db.allEffects()).isEqualTo(3);
    assertThat(restarted.counters().processed()).isEqualTo(2);
  }

  @Test
  void stopsAtARecordWithoutAnEventIdWithoutRetryingIt() throws Exception {
    kafka.createTopic(topic, 1);
    publish(
        List.of(
            event("ok-1", "o-1"),
            new ProducerRecord<>(topic, bytes("o-1"), bytes("{}")),
            event("ok-2", "o-1")));
    AtomicInteger retries = new AtomicInteger();
    IdempotentConsumer consumer =
        consumerBuilder()
            .failurePolicy(FailurePolicy.stop())
            .listener(
                new ConsumerListener() {
                  @Override
                  public void onRetry(
                      ConsumerRecord<byte[], byte[]> record, Throwable e, int n, Duration d) {
                    retries.incrementAndGet();
                  }
                })
            .build();
    consumers.add(consumer);

    ConsumerStoppedException stopped = runUntilStopped(consumer);

    assertThat(stopped.eventId()).isNull();
    assertThat(stopped.offset()).isEqualTo(1);
    assertThat(stopped).hasCauseInstanceOf(PoisonRecordException.class);
    assertThat(retries).hasValue(0);
    assertThat(consumer.counters().failures()).isEqualTo(1);
    assertThat(committedTotal()).isEqualTo(1);
    assertThat(db.allEffects()).isEqualTo(1);
  }

  @Test
  void deadLettersEachEventIdThatIsNotUtf8InsteadOfSkippingTheSecondAsADuplicate()
      throws Exception {
    // Decoded leniently, both ids read "e\uFFFD": the second event would be counted a duplicate,
    // its handler never run and its offset committed.
    kafka.createTopic(topic, 1);
    String deadLetterTopic = topic + ".dlq";
    kafka.createTopic(deadLetterTopic, 1);
    byte[] firstId = {'e', (byte) 0xff};
    byte[] secondId = {'e', (byte) 0xfe};
    publish(
        List.of(
            event("ok-1", "o-1"),
            withRawId(event("-", "o-2"), firstId),
            withRawId(event("-", "o-3"), secondId),
            event("ok-2", "o-1")));

    IdempotentConsumer consumer =
        start(consumerBuilder().failurePolicy(FailurePolicy.deadLetter(deadLetterTopic)));

    List<ConsumedRecord> dead =
        TopicReader.forTopics(kafka.bootstrapServers(), deadLetterTopic)
            .readUntil(r -> r.size() >= 2, WAIT);
    await().atMost(WAIT).until(() -> committedTotal() == 4);

    assertThat(dead).hasSize(2);
    assertThat(dead.get(0).headers().get("id")).isEqualTo(firstId);
    assertThat(dead.get(0).keyAsString()).isEqualTo("o-2");
    assertThat(dead.get(0).header(FailurePolicy.HEADER_ORIGINAL_OFFSET)).isEqualTo("1");
    assertThat(dead.get(1).headers().get("id")).isEqualTo(secondId);
    assertThat(dead.get(1).keyAsString()).isEqualTo("o-3");
    assertThat(dead.get(1).header(FailurePolicy.HEADER_ORIGINAL_OFFSET)).isEqualTo("2");
    for (ConsumedRecord each : dead) {
      assertThat(each.header(FailurePolicy.HEADER_ERROR_CLASS))
          .isEqualTo(PoisonRecordException.class.getName());
      assertThat(each.header(FailurePolicy.HEADER_ERROR_MESSAGE))
          .startsWith("the record's 'id' header is not valid UTF-8 (bytes 65f");
      assertThat(each.header(FailurePolicy.HEADER_ATTEMPTS)).isEqualTo("1");
    }
    assertThat(consumer.counters().processed()).isEqualTo(2);
    assertThat(consumer.counters().duplicates()).isZero();
    assertThat(consumer.counters().deadLettered()).isEqualTo(2);
    assertThat(db.effects("ok-1")).isEqualTo(1);
    assertThat(db.effects("ok-2")).isEqualTo(1);
    assertThat(db.allEffects()).isEqualTo(2);
    assertThat(db.processedRows(group)).as("no invalid id recorded").isEqualTo(2);
  }

  @Test
  void treatsTheRedeliveryAfterACrashBetweenDatabaseCommitAndOffsetCommitAsADuplicate()
      throws Exception {
    kafka.createTopic(topic, 1);
    publish(events(1, 6));

    ChildProcess crashing = startChild("e3");
    crashing.awaitLogLine("HANGING e3", WAIT);
    assertThat(db.isRecorded(group, "e3")).as("the database committed").isTrue();
    assertThat(db.effects("e3")).isEqualTo(1);
    assertThat(committedTotal()).as("the offset of e3 is not committed").isLessThanOrEqualTo(2);
    crashing.kill();
    assertThat(crashing.waitFor(Duration.ofSeconds(30))).isEqualTo(137);

    ChildProcess restarted = startChild("-");
    restarted.awaitLogLine("DB-COMMIT e3 DUPLICATE", WAIT);
    await().atMost(WAIT).until(() -> committedTotal() == 5);
    for (int i = 1; i <= 5; i++) {
      assertThat(db.effects("e" + i)).as("effects of e" + i).isEqualTo(1);
    }
    assertThat(db.allEffects()).isEqualTo(5);
  }

  @Test
  void deadLettersAnEventThatReusesAProcessedIdWithAnotherPayloadAndAppliesTheRest()
      throws Exception {
    kafka.createTopic(topic, 1);
    String deadLetterTopic = topic + ".dlq";
    kafka.createTopic(deadLetterTopic, 1);
    publish(
        List.of(
            event("e1", "o-1", "{\"amount\":10}"),
            event("e1", "o-1", "{\"amount\":10}"), // re-published: same bytes
            event("e1", "o-2", "{\"amount\":99}"), // another event under e1
            event("e2", "o-1", "{\"amount\":5}")));
    List<String> outcomes = new CopyOnWriteArrayList<>();

    IdempotentConsumer consumer =
        start(
            consumerBuilder()
                .processor(conflictChecking())
                .failurePolicy(FailurePolicy.deadLetter(deadLetterTopic))
                .listener(
                    new ConsumerListener() {
                      @Override
                      public void afterDatabaseCommit(
                          ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
                        outcomes.add(id(record) + "@" + record.offset() + " " + outcome);
                      }
                    }));

    List<ConsumedRecord> dead =
        TopicReader.forTopics(kafka.bootstrapServers(), deadLetterTopic)
            .readUntil(r -> !r.isEmpty(), WAIT);
    await().atMost(WAIT).until(() -> committedTotal() == 4);

    assertThat(dead).hasSize(1);
    ConsumedRecord conflict = dead.get(0);
    assertThat(conflict.header("id")).isEqualTo("e1");
    assertThat(conflict.keyAsString()).isEqualTo("o-2");
    assertThat(conflict.valueAsString()).isEqualTo("{\"amount\":99}");
    assertThat(conflict.header(FailurePolicy.HEADER_ORIGINAL_OFFSET)).isEqualTo("2");
    assertThat(conflict.header(FailurePolicy.HEADER_ERROR_CLASS))
        .isEqualTo(PoisonRecordException.class.getName());
    assertThat(conflict.header(FailurePolicy.HEADER_ERROR_MESSAGE))
        .startsWith("event id conflict: an event with id e1 was already processed");
    assertThat(conflict.header(FailurePolicy.HEADER_ATTEMPTS)).isEqualTo("1");
    assertThat(outcomes)
        .containsExactly("e1@0 PROCESSED", "e1@1 DUPLICATE", "e1@2 CONFLICT", "e2@3 PROCESSED");
    assertThat(consumer.counters()).isEqualTo(new Counters(2, 1, 0, 1, 0, 1));
    assertThat(db.effects("e1")).isEqualTo(1);
    assertThat(db.effects("e2")).isEqualTo(1);
    assertThat(db.payloadHash(group, "e1"))
        .as("the conflict changed nothing")
        .isEqualTo(sha256Hex("{\"amount\":10}"));
  }

  @Test
  void stopsAtAConflictWithoutRetryingItUnderTheStopPolicy() throws Exception {
    kafka.createTopic(topic, 1);
    publish(
        List.of(
            event("e1", "o-1", "{\"amount\":10}"),
            event("e1", "o-1", "{\"amount\":99}"),
            event("e2", "o-1", "{\"amount\":5}")));
    AtomicInteger retries = new AtomicInteger();
    IdempotentConsumer consumer =
        consumerBuilder()
            .processor(conflictChecking())
            .failurePolicy(FailurePolicy.stop())
            .listener(countingRetries(retries))
            .build();
    consumers.add(consumer);

    ConsumerStoppedException stopped = runUntilStopped(consumer);

    assertThat(stopped.eventId()).isEqualTo("e1");
    assertThat(stopped.offset()).isEqualTo(1);
    assertThat(stopped)
        .hasCauseInstanceOf(PoisonRecordException.class)
        .hasMessageContaining("event id conflict");
    assertThat(retries).hasValue(0);
    assertThat(consumer.counters()).isEqualTo(new Counters(1, 0, 0, 1, 0, 0));
    assertThat(committedTotal()).isEqualTo(1);
    assertThat(db.allEffects()).isEqualTo(1);
  }

  @Test
  void takesAnIdWithOtherBytesForADuplicateWhenTheConflictCheckIsOff() throws Exception {
    kafka.createTopic(topic, 1);
    publish(
        List.of(
            event("e1", "o-1", "{\"amount\":10}"),
            event("e1", "o-1", "{\"amount\":99}"),
            event("e2", "o-1", "{\"amount\":5}")));

    IdempotentConsumer consumer = start(consumerBuilder());

    await().atMost(WAIT).until(() -> committedTotal() == 3);
    assertThat(consumer.counters()).isEqualTo(new Counters(2, 1, 0, 0, 0, 0));
    assertThat(db.allEffects()).isEqualTo(2);
    assertThat(db.payloadHash(group, "e1")).isNull();
  }

  @Test
  void stopsAtOnceWithoutDeadLetteringWhenTheConflictCheckFindsNoPayloadHashColumn()
      throws Exception {
    kafka.createTopic(topic, 1);
    db.dropPayloadHashColumn();
    publish(List.of(event("e1", "o-1"), event("e2", "o-1")));
    AtomicInteger retries = new AtomicInteger();
    IdempotentConsumer consumer =
        consumerBuilder()
            .processor(conflictChecking())
            .failurePolicy(FailurePolicy.deadLetter(topic + ".dlq"))
            .listener(countingRetries(retries))
            .build();
    consumers.add(consumer);

    ConsumerStoppedException stopped = runUntilStopped(consumer);

    assertThat(stopped.offset()).isZero();
    assertThat(stopped.getCause())
        .isInstanceOf(SchemaMigrationRequiredException.class)
        .hasMessageContaining(db.payloadHashMigration());
    assertThat(stopped).hasMessageContaining(db.payloadHashMigration());
    assertThat(retries).hasValue(0);
    assertThat(consumer.counters().deadLettered()).isZero();
    assertThat(committedTotal()).isZero();
    assertThat(db.allEffects()).isZero();
  }

  // ---------------------------------------------------------------- helpers

  private IdempotentProcessor conflictChecking() {
    return IdempotentProcessor.builder(db.dataSource(), group).conflictCheck().build();
  }

  private static ConsumerListener countingRetries(AtomicInteger retries) {
    return new ConsumerListener() {
      @Override
      public void onRetry(ConsumerRecord<byte[], byte[]> record, Throwable e, int n, Duration d) {
        retries.incrementAndGet();
      }
    };
  }

  private static String sha256Hex(String payload) {
    return EventRef.of("-").withPayload(bytes(payload)).payloadHash();
  }

  private IdempotentConsumer.Builder consumerBuilder() {
    return IdempotentConsumer.builder()
        .kafkaProperties(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "group.id",
                group,
                "max.poll.records",
                "20"))
        .topics(topic)
        .processor(IdempotentProcessor.builder(db.dataSource(), group).build())
        .handler((record, connection) -> TestDatabase.applyEffect(connection, id(record), 1))
        .pollTimeout(Duration.ofMillis(100));
  }

  private IdempotentConsumer start(IdempotentConsumer.Builder builder) {
    IdempotentConsumer consumer = builder.build();
    consumers.add(consumer);
    executor.submit(consumer::run);
    return consumer;
  }

  private ConsumerStoppedException runUntilStopped(IdempotentConsumer consumer) throws Exception {
    Future<?> run = executor.submit(consumer::run);
    try {
      run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ConsumerStoppedException.class);
      return (ConsumerStoppedException) e.getCause();
    }
    throw new AssertionError("the consumer did not stop");
  }

  private ChildProcess startChild(String hangOn) {
    ChildProcess child =
        ChildProcess.builder(
                ChildProcess.javaCommand(
                    "256m",
                    System.getProperty("java.class.path"),
                    CrashableConsumerMain.class.getName(),
                    kafka.bootstrapServers(),
                    topic,
                    group,
                    db.jdbcUrl(),
                    db.user(),
                    db.password() == null ? "-" : db.password(),
                    hangOn))
            .name("crashable-consumer")
            .logFile(Path.of("target", "child-logs", group + "-" + children.size() + ".log"))
            .start();
    children.add(child);
    return child;
  }

  private ProducerRecord<byte[], byte[]> event(String id, String aggregateId) {
    return event(id, aggregateId, "{\"order\":\"" + id + "\"}");
  }

  private ProducerRecord<byte[], byte[]> event(String id, String aggregateId, String payload) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, bytes(aggregateId), bytes(payload));
    record.headers().add("id", bytes(id));
    record.headers().add("event_type", bytes("OrderUpdated"));
    record.headers().add("aggregate_type", bytes("order"));
    record.headers().add("aggregate_id", bytes(aggregateId));
    return record;
  }

  private static ProducerRecord<byte[], byte[]> withRawId(
      ProducerRecord<byte[], byte[]> record, byte[] id) {
    record.headers().remove("id");
    record.headers().add("id", id);
    return record;
  }

  private List<ProducerRecord<byte[], byte[]>> events(int from, int to) {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = from; i < to; i++) {
      records.add(event("e" + i, "o-" + (i % 11)));
    }
    return records;
  }

  private void publish(List<ProducerRecord<byte[], byte[]>> records) throws Exception {
    List<Future<?>> sent = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> record : records) {
      sent.add(producer.send(record));
    }
    for (Future<?> each : sent) {
      each.get(30, TimeUnit.SECONDS);
    }
  }

  /** The sum of the group's committed offsets over all partitions of the topic. */
  private long committedTotal() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      return offsets.entrySet().stream()
          .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
          .mapToLong(e -> e.getValue().offset())
          .sum();
    }
  }

  private static String id(ConsumerRecord<byte[], byte[]> record) {
    return new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** The order of database commits and offset commits, as the listener saw them. */
  private static final class CommitLog implements ConsumerListener {

    private final List<Object> entries = new ArrayList<>();

    private record DatabaseCommit(TopicPartition partition, long offset) {}

    private record OffsetCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

    @Override
    public synchronized void afterDatabaseCommit(
        ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
      entries.add(
          new DatabaseCommit(
              new TopicPartition(record.topic(), record.partition()), record.offset()));
    }

    @Override
    public synchronized void afterOffsetsCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {
      entries.add(new OffsetCommit(offsets));
    }

    synchronized void assertEveryOffsetCommitFollowsTheDatabaseCommitsItCovers() {
      Map<TopicPartition, List<Long>> committedInDatabase = new HashMap<>();
      int offsetCommits = 0;
      for (Object entry : entries) {
        if (entry instanceof DatabaseCommit commit) {
          committedInDatabase
              .computeIfAbsent(commit.partition(), p -> new ArrayList<>())
              .add(commit.offset());
        } else if (entry instanceof OffsetCommit commit) {
          offsetCommits++;
          commit
              .offsets()
              .forEach(
                  (partition, next) -> {
                    List<Long> done = committedInDatabase.getOrDefault(partition, List.of());
                    for (long offset = 0; offset < next.offset(); offset++) {
                      assertThat(done)
                          .as(
                              "offset %d of %s committed to Kafka before its database commit",
                              offset, partition)
                          .contains(offset);
                    }
                  });
        }
      }
      assertThat(offsetCommits).isPositive();
    }
  }
}
