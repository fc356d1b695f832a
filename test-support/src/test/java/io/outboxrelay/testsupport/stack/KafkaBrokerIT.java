package io.outboxrelay.testsupport.stack;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** One broker goes through a life: start, produce, stop and start, kill and start, close. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaBrokerIT {

  private static final String TOPIC = "local-stack.broker-it";
  private static KafkaBroker broker;
  private static String bootstrap;

  @BeforeAll
  static void startBroker() {
    broker =
        KafkaBroker.builder().partitions(2).brokerProperty("message.max.bytes", "2097152").start();
    bootstrap = broker.bootstrapServers();
  }

  @AfterAll
  static void closeBroker() {
    broker.close();
  }

  @Test
  @Order(1)
  void producesARecordThatTopicReaderReadsBackWithKeyHeadersAndValue() throws Exception {
    broker.createTopic(TOPIC, 2);
    send(TOPIC, "order-1", "{\"n\":1}");

    List<ConsumedRecord> records =
        TopicReader.forTopics(bootstrap, TOPIC)
            .readUntil(r -> !r.isEmpty(), Duration.ofSeconds(30));

    assertThat(records).hasSize(1);
    ConsumedRecord record = records.get(0);
    assertThat(record.topic()).isEqualTo(TOPIC);
    assertThat(record.keyAsString()).isEqualTo("order-1");
    assertThat(record.valueAsString()).isEqualTo("{\"n\":1}");
    assertThat(record.headers().keySet()).containsExactly("id", "event_type");
    assertThat(record.header("id")).isEqualTo("second-id");
    assertThat(record.header("event_type")).isEqualTo("Created");
    assertThat(broker.brokerProperties()).containsEntry("message.max.bytes", "2097152");
  }

  @Test
  @Order(2)
  void autoCreatesTopicsWithTheConfiguredPartitionCount() throws Exception {
    send("local-stack.auto-created", "k", "v");

    List<ConsumedRecord> records =
        TopicReader.forTopics(bootstrap, "local-stack.auto-created")
            .readUntil(r -> !r.isEmpty(), Duration.ofSeconds(30));

    assertThat(records).hasSize(1);
    try (var admin =
        org.apache.kafka.clients.admin.Admin.create(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      assertThat(
              admin
                  .describeTopics(List.of("local-stack.auto-created"))
                  .allTopicNames()
                  .get(10, TimeUnit.SECONDS)
                  .get("local-stack.auto-created")
                  .partitions())
          .hasSize(2);
    }
  }

  @Test
  @Order(3)
  void keepsRecordsAndTheBootstrapAddressAcrossStopAndStart() throws Exception {
    long pid = broker.pid();

    broker.stop();
    assertThat(broker.isRunning()).isFalse();
    assertThat(broker.dataDir().resolve("kraft")).isDirectory();
    broker.start();

    assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
    assertThat(broker.pid()).isNotEqualTo(pid);
    send(TOPIC, "order-2", "{\"n\":2}");
    assertThat(TopicReader.forTopics(bootstrap, TOPIC).readAll(Duration.ofSeconds(1)))
        .extracting(ConsumedRecord::keyAsString)
        .containsExactlyInAnyOrder("order-1", "order-2");
  }

  @Test
  @Order(4)
  void startsAgainAfterSigkill() throws Exception {
    broker.kill();
    assertThat(broker.isRunning()).isFalse();

    broker.start();

    send(TOPIC, "order-3", "{\"n\":3}");
    assertThat(TopicReader.forTopics(bootstrap, TOPIC).readAll(Duration.ofSeconds(1)))
        .extracting(ConsumedRecord::keyAsString)
        .containsExactlyInAnyOrder("order-1", "order-2", "order-3");
  }

  @Test
  @Order(5)
  void logsToServerLogWithoutSlf4jBindingWarnings() throws Exception {
    assertThat(Files.readString(broker.serverLog())).contains("Kafka Server started");
    assertThat(Files.readString(broker.dataDir().resolve("broker.out")))
        .doesNotContain("SLF4J")
        .doesNotContain("Kafka Server started");
    assertThat(Files.readString(broker.dataDir().resolve("format.out"))).doesNotContain("SLF4J");
  }

  @Test
  @Order(6)
  void closeStopsTheBrokerAndDeletesItsDataDirectory() {
    Path dataDir = broker.dataDir();

    broker.close();

    assertThat(broker.isRunning()).isFalse();
    assertThat(dataDir).doesNotExist();
  }

  private static void send(String topic, String key, String value) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>(topic, key.getBytes(UTF_8), value.getBytes(UTF_8));
      record.headers().add("id", "first-id".getBytes(UTF_8));
      record.headers().add("event_type", "Created".getBytes(UTF_8));
      record.headers().add("id", "second-id".getBytes(UTF_8));
      producer.send(record).get(30, TimeUnit.SECONDS);
    }
  }
}
