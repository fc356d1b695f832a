package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConsumerSettingsTest {

  private static Map<String, Object> minimal() {
    Map<String, Object> settings = new HashMap<>();
    settings.put("bootstrap.servers", "127.0.0.1:9092");
    settings.put("group.id", "billing");
    return settings;
  }

  @Test
  void turnsAutoCommitOffAndStartsANewGroupAtTheEarliestOffset() {
    Map<String, Object> settings = ConsumerSettings.consumer(minimal());

    assertThat(settings)
        .containsEntry("enable.auto.commit", "false")
        .containsEntry("auto.offset.reset", "earliest");
  }

  @Test
  void readsOnlyCommittedRecordsOfTransactionalProducersByDefaultWithoutWarning() {
    Map<String, Object> settings = ConsumerSettings.consumer(minimal());

    assertThat(settings).containsEntry("isolation.level", "read_committed");
    assertThat(ConsumerSettings.warnings(settings)).isEmpty();
  }

  @Test
  void keepsAnExplicitReadCommittedWithoutWarning() {
    Map<String, Object> user = minimal();
    user.put("isolation.level", "read_committed");

    Map<String, Object> settings = ConsumerSettings.consumer(user);

    assertThat(settings).containsEntry("isolation.level", "read_committed");
    assertThat(ConsumerSettings.warnings(settings)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"read_uncommitted", " read_uncommitted "})
  void allowsAnExplicitReadUncommittedAndWarnsThatAbortedRecordsAreApplied(String value) {
    Map<String, Object> user = minimal();
    user.put("isolation.level", value);

    Map<String, Object> settings = ConsumerSettings.consumer(user);

    assertThat(settings).containsEntry("isolation.level", value);
    assertThat(ConsumerSettings.warnings(settings))
        .singleElement()
        .asString()
        .startsWith("isolation.level=read_uncommitted: ")
        .contains("records of aborted Kafka transactions are delivered and applied too")
        .contains("remove the setting");
  }

  @Test
  void keepsAnExplicitOffsetResetAndAnExplicitAutoCommitOff() {
    Map<String, Object> user = minimal();
    user.put("auto.offset.reset", "latest");
    user.put("enable.auto.commit", Boolean.FALSE);

    assertThat(ConsumerSettings.consumer(user))
        .containsEntry("auto.offset.reset", "latest")
        .containsEntry("enable.auto.commit", "false");
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "TRUE", " true", "yes"})
  void refusesAutoCommit(String value) {
    Map<String, Object> user = minimal();
    user.put("enable.auto.commit", value);

    assertThatThrownBy(() -> ConsumerSettings.consumer(user))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("enable.auto.commit=" + value + " is refused")
        .hasMessageContaining("only after the database commit");
  }

  @Test
  void reportsEveryProblemAtOnce() {
    Map<String, Object> user = new HashMap<>();
    user.put("enable.auto.commit", true);
    user.put("value.deserializer", StringDeserializer.class);

    assertThatThrownBy(() -> ConsumerSettings.consumer(user))
        .hasMessageContaining("bootstrap.servers is required")
        .hasMessageContaining("group.id is required")
        .hasMessageContaining("enable.auto.commit=true is refused")
        .hasMessageContaining("value.deserializer=" + StringDeserializer.class.getName());
  }

  @Test
  void acceptsByteArrayDeserializersGivenByClassOrName() {
    Map<String, Object> user = minimal();
    user.put("key.deserializer", ByteArrayDeserializer.class);
    user.put("value.deserializer", ByteArrayDeserializer.class.getName());

    assertThat(ConsumerSettings.consumer(user))
        .doesNotContainKeys("key.deserializer", "value.deserializer");
  }

  @Test
  void givesTheDeadLetterProducerTheConsumersServersAndSecurityButNotItsOtherSettings() {
    Map<String, Object> consumer = ConsumerSettings.consumer(minimal());
    consumer.put("security.protocol", "SSL");
    consumer.put("ssl.truststore.location", "/etc/kafka/trust.jks");
    consumer.put("max.poll.records", "10");

    Map<String, Object> producer = ConsumerSettings.deadLetterProducer(consumer, Map.of());

    assertThat(producer)
        .containsEntry("bootstrap.servers", "127.0.0.1:9092")
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.truststore.location", "/etc/kafka/trust.jks")
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", "true")
        .containsEntry("client.id", "billing-dead-letter")
        .containsEntry("max.in.flight.requests.per.connection", "1")
        .doesNotContainKeys("max.poll.records", "group.id");
  }

  @Test
  void refusesADeadLetterProducerThatCouldLoseRecords() {
    Map<String, Object> consumer = ConsumerSettings.consumer(minimal());

    assertThatThrownBy(
            () ->
                ConsumerSettings.deadLetterProducer(
                    consumer, Map.of("acks", "1", "value.serializer", StringSerializer.class)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("acks=1 is refused")
        .hasMessageContaining("value.serializer");
  }
}
