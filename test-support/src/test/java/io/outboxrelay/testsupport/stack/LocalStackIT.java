package io.outboxrelay.testsupport.stack;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class LocalStackIT {

  @Test
  void sharedReturnsOneRunningStackPerJvm() throws SQLException {
    LocalStack stack = LocalStack.shared();

    assertThat(LocalStack.shared()).isSameAs(stack);
    assertThat(stack.kafka().isRunning()).isTrue();
    try (Connection connection = stack.mariaDb().adminConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT @@log_bin, @@binlog_format")) {
      row.next();
      assertThat(row.getInt(1)).isEqualTo(1);
      assertThat(row.getString(2)).isEqualTo("ROW");
    }
  }

  @Test
  void topicReaderReadsEveryTopicMatchingAPatternAndOnlyThose() throws Exception {
    String prefix = "reader-" + UUID.randomUUID();
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    send(bootstrap, prefix + ".a", "1", "2");
    send(bootstrap, prefix + ".b", "3");
    send(bootstrap, prefix + "-other", "4");

    TopicReader reader =
        TopicReader.forPattern(bootstrap, Pattern.compile(Pattern.quote(prefix) + "\\..*"));

    assertThat(reader.readUntil(records -> records.size() >= 3, Duration.ofSeconds(30)))
        .extracting(ConsumedRecord::valueAsString)
        .containsExactlyInAnyOrder("1", "2", "3");
    assertThat(reader.readAll(Duration.ofSeconds(1)))
        .extracting(ConsumedRecord::valueAsString)
        .containsExactlyInAnyOrder("1", "2", "3");
  }

  @Test
  void topicReaderPicksUpATopicCreatedWhileItReads() throws Exception {
    String topic = "reader-late-" + UUID.randomUUID();
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    TopicReader reader = TopicReader.forTopics(bootstrap, topic);
    assertThat(reader.readAll(Duration.ofMillis(300))).isEmpty();

    Thread producer =
        new Thread(
            () -> {
              try {
                send(bootstrap, topic, "late");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    producer.start();

    assertThat(reader.readUntil(records -> !records.isEmpty(), Duration.ofSeconds(30)))
        .extracting(ConsumedRecord::valueAsString)
        .containsExactly("late");
    producer.join(TimeUnit.SECONDS.toMillis(30));
  }

  @Test
  void topicReaderReturnsWhatItHasWhenTheConditionTimesOut() throws Exception {
    String topic = "reader-timeout-" + UUID.randomUUID();
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    send(bootstrap, topic, "only");

    List<ConsumedRecord> records =
        TopicReader.forTopics(bootstrap, topic)
            .readUntil(r -> r.size() >= 2, Duration.ofSeconds(2));

    assertThat(records).extracting(ConsumedRecord::valueAsString).containsExactly("only");
  }

  private static void send(String bootstrap, String topic, String... values) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (String value : values) {
        producer
            .send(new ProducerRecord<>(topic, null, value.getBytes(UTF_8)))
            .get(30, TimeUnit.SECONDS);
      }
    }
  }
}
