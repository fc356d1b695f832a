package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transform on Kafka Connect 4.1.1 in distributed mode with exactly-once source support
 * (KIP-618: {@code exactly.once.source.support=enabled} on the worker, {@code
 * exactly.once.support=required} and {@code transaction.boundary=poll} on the connector), with
 * Debezium's MariaDB connector on the private binlog MariaDB, as docs/kafka-connect.md describes
 * it. A worker without the worker setting refuses the connector; the one with it accepts it, and
 * while the application commits, the worker is killed (SIGKILL) and started again. A {@code
 * read_committed} consumer then sees every committed event exactly once, each aggregate in order,
 * byte for byte; every producer that wrote the outbox topics wrote transaction markers, the task's
 * transactional producer among them, and the same producer wrote the connector's offsets.
 */
class ExactlyOnceConnectIT {

  private static final String CONNECTOR_CLASS = "io.debezium.connector.mariadb.MariaDbConnector";
  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private OutboxDatabase db;
  private EventWriter writer;
  private final List<KafkaConnectWorker> workers = new ArrayList<>();
  private String bootstrap;
  private List<Path> pluginPath;

  @AfterEach
  void tearDown() throws Exception {
    if (writer != null) {
      writer.stop();
    }
    workers.forEach(KafkaConnectWorker::close);
    if (db != null) {
      db.close();
    }
  }

  @Test
  void publishesEveryEventOnceInTransactionsWithItsOffsetsAcrossAWorkerKill() throws Exception {
    LocalStack stack = LocalStack.shared();
    bootstrap = stack.kafka().bootstrapServers();
    db = OutboxDatabase.on(stack.mariaDb());
    pluginPath =
        List.of(ConnectTestFiles.unpackTransformPlugin(dir), ConnectTestFiles.debeziumPluginPath());
    String name = "eos" + Long.toHexString(System.nanoTime() & 0xffffff);
    String prefix = RelaySettings.topicPrefix(name);
    String group = name + "-connect";
    Map<String, String> config =
        ConnectTestFiles.outboxConnector(db, name, prefix + "${aggregate_type}", bootstrap);
    config.put("exactly.once.support", "required");
    config.put("transaction.boundary", "poll");

    // Started together; the first has no exactly-once source support and must refuse "required".
    KafkaConnectWorker plain = start(name + "-plain", name + "-plain", false);
    KafkaConnectWorker worker = start(name + "-eos", group, true);
    assertThat(exactlyOnceSupportErrors(plain.awaitHealthy(WAIT), name, config))
        .containsExactly("This worker does not have exactly-once source support enabled.");
    plain.close();
    assertThat(exactlyOnceSupportErrors(worker.awaitHealthy(WAIT), name, config)).isEmpty();
    KafkaConnectWorker.Answer created = worker.put("/connectors/" + name + "/config", config);
    assertThat(created.status()).as("%s", created.body()).isEqualTo(201);
    worker.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, WAIT);

    Ledger ledger = new Ledger(prefix);
    writer = EventWriter.start(db, ledger);
    TopicReader reader = TopicReader.forPrefix(bootstrap, prefix);
    assertThat(reader.readUntil(r -> r.size() >= 100, WAIT)).hasSizeGreaterThanOrEqualTo(100);
    // Killed while the application commits: its open transaction, if any, is aborted when the
    // task's next generation starts, and that generation resumes at the last committed offset.
    worker.process().kill();
    worker.process().waitFor(Duration.ofSeconds(30));
    KafkaConnectWorker restarted = start(name + "-eos-restarted", group, true);
    restarted.process().awaitLogLine(KafkaConnectWorker.BINLOG_CONNECTED, WAIT);
    long atRestart = writer.written();
    Awaitility.await().atMost(WAIT).until(() -> writer.written() >= atRestart + 60);
    writer.stop();

    reader.readUntil(ledger::allArrived, WAIT);
    List<ConsumedRecord> records = reader.readAll(Duration.ofSeconds(2), WAIT);
    Ledger.Result result = ledger.check(records);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    JsonNode status = restarted.get("/connectors/" + name + "/status");
    assertThat(status.path("tasks").path(0).path("state").asText())
        .as("%s", status)
        .isEqualTo("RUNNING");
    assertTransactional(records, group + "-" + name + "-0", restarted, name);
    System.out.printf(
        "exactly-once on Connect: %d events committed, %d records read_committed, %d"
            + " read_uncommitted (the difference: records of aborted transactions)%n",
        ledger.size(),
        records.size(),
        reader.includingUncommitted().readAll(Duration.ofSeconds(1), WAIT).size());
  }

  /**
   * Every producer that wrote the outbox topics has written transaction markers; the task's
   * transactional producer ({@code <group.id>-<connector>-<task>}) is among them and also wrote the
   * connector's offsets to the worker's offsets topic. A record of an idempotent producer without
   * transactions shows what a producer without markers looks like.
   */
  private void assertTransactional(
      List<ConsumedRecord> records, String transactionalId, KafkaConnectWorker worker, String name)
      throws Exception {
    Set<TopicPartition> outbox =
        records.stream()
            .map(r -> new TopicPartition(r.topic(), r.partition()))
            .collect(Collectors.toSet());
    TopicPartition offsets = new TopicPartition(worker.property("offset.storage.topic"), 0);
    TopicPartition plain = new TopicPartition(name + "-without-transactions", 0);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "enable.idempotence", "true"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(plain.topic(), plain.partition(), null, new byte[] {1}))
          .get(30, TimeUnit.SECONDS);
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      TransactionListing task =
          admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
              .filter(t -> t.transactionalId().equals(transactionalId))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no transactional id " + transactionalId));
      List<ProducerState> outboxProducers = producers(admin, outbox);
      assertThat(outboxProducers)
          .as("the producers of the outbox topics")
          .isNotEmpty()
          .allMatch(p -> p.coordinatorEpoch().isPresent(), "wrote transaction markers")
          .anyMatch(p -> p.producerId() == task.producerId());
      assertThat(producers(admin, Set.of(offsets)))
          .as("the producers of the offsets topic")
          .anyMatch(p -> p.producerId() == task.producerId() && p.coordinatorEpoch().isPresent());
      assertThat(producers(admin, Set.of(plain)))
          .as("an idempotent producer without transactions")
          .isNotEmpty()
          .noneMatch(p -> p.coordinatorEpoch().isPresent());
    }
  }

  private static List<ProducerState> producers(Admin admin, Set<TopicPartition> partitions)
      throws Exception {
    return admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS).values().stream()
        .flatMap(state -> state.activeProducers().stream())
        .toList();
  }

  /** The validation errors of {@code exactly.once.support} the worker reports for the config. */
  private static List<String> exactlyOnceSupportErrors(
      KafkaConnectWorker worker, String name, Map<String, String> config) {
    Map<String, String> named = new LinkedHashMap<>(config);
    named.put("name", name);
    KafkaConnectWorker.Answer answer =
        worker.put("/connector-plugins/" + CONNECTOR_CLASS + "/config/validate", named);
    assertThat(answer.status()).as("%s", answer.body()).isEqualTo(200);
    List<String> errors = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (JsonNode each : answer.body().path("configs")) {
      JsonNode value = each.path("value");
      for (JsonNode error : value.path("errors")) {
        (value.path("name").asText().equals("exactly.once.support") ? errors : others)
            .add(error.asText());
      }
    }
    assertThat(others).as("errors of other settings").isEmpty();
    return errors;
  }

  private KafkaConnectWorker start(String process, String group, boolean exactlyOnce)
      throws IOException {
    KafkaConnectWorker.Builder builder =
        KafkaConnectWorker.builder(
                process, dir.resolve(process), ConnectTestFiles.workerClasspath())
            .logDir(Files.createDirectories(Path.of("target", "it-logs")))
            .heap("384m")
            .jvmOptions(List.of("-XX:+UseSerialGC"))
            .pluginPath(pluginPath)
            .bootstrapServers(bootstrap)
            .distributed(group)
            // A restarted worker has a new REST address, so Connect sees a new member: hand it
            // the lost task at once instead of waiting up to 5 minutes for the old one.
            .workerProperty("scheduled.rebalance.max.delay.ms", "0");
    if (exactlyOnce) {
      builder.workerProperty("exactly.once.source.support", "enabled");
    }
    KafkaConnectWorker worker = builder.start();
    workers.add(worker);
    return worker;
  }

  /**
   * The application: transactions of one to three events over six aggregates of two types, one
   * after another, each registered in the ledger once its transaction committed.
   */
  private static final class EventWriter {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong written = new AtomicLong();
    private Thread thread;
    private volatile Throwable failure;

    static EventWriter start(OutboxDatabase db, Ledger ledger) {
      EventWriter w = new EventWriter();
      w.thread = new Thread(() -> w.write(db, ledger), "event-writer");
      w.thread.start();
      return w;
    }

    private void write(OutboxDatabase db, Ledger ledger) {
      long[] sequence = new long[6];
      ThreadLocalRandom random = ThreadLocalRandom.current();
      try (Connection c = db.app()) {
        while (!stop.get()) {
          List<TestEvent> tx = new ArrayList<>();
          for (int i = 0, n = random.nextInt(1, 4); i < n; i++) {
            int a = random.nextInt(6);
            String type = a % 2 == 0 ? "order" : "invoice";
            tx.add(TestEvent.of(type, type + "-" + a, ++sequence[a]));
          }
          RawOutboxInserts.writeTransaction(c, tx);
          ledger.expect(tx);
          written.addAndGet(tx.size());
          Thread.sleep(5); // a steady application, not a flood
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable t) {
        failure = t;
      }
    }

    long written() {
      if (failure != null) {
        throw new IllegalStateException("the writer failed", failure);
      }
      return written.get();
    }

    void stop() throws InterruptedException {
      stop.set(true);
      thread.join(10_000);
      written();
    }
  }
}
