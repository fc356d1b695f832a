package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProducerSettingsTest {

  private static ProducerSettings settings(Map<String, String> overrides) {
    return new ProducerSettings(RelayMode.CDC, "k:9092", overrides);
  }

  @Test
  void defaultsAreSafe() {
    Map<String, Object> props = settings(Map.of()).asProperties("relay-1");

    assertThat(props)
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", "true")
        .containsEntry("bootstrap.servers", "k:9092")
        .containsEntry("client.id", "relay-1")
        .containsEntry(
            "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
    assertThat(settings(Map.of()).problems()).isEmpty();
  }

  @Test
  void cdcNeverExpiresRecordsWhilePollingBoundsDelivery() {
    // An expired record re-sent by the relay could land after a later record of its key.
    assertThat(
            new ProducerSettings(RelayMode.CDC, "k:9092", Map.of())
                .effective("delivery.timeout.ms"))
        .isEqualTo(String.valueOf(Integer.MAX_VALUE));
    assertThat(
            new ProducerSettings(RelayMode.POLLING, "k:9092", Map.of())
                .effective("delivery.timeout.ms"))
        .isEqualTo("30000");
  }

  @ParameterizedTest(name = "{0}={1} is refused")
  @CsvSource({
    "acks, 1, lets Kafka acknowledge events a broker failure can lose",
    "acks, 0, lets Kafka acknowledge events a broker failure can lose",
    "acks, One, lets Kafka acknowledge events a broker failure can lose",
    "acks, al, lets Kafka acknowledge events a broker failure can lose",
    "enable.idempotence, false, allows duplicates and reordering",
    "max.in.flight.requests.per.connection, 6, breaks ordering with idempotence",
    "retries, 0, turns every transient broker error into a failure",
    "transactional.id, tx-1, use delivery.transactional.id",
    "value.serializer, org.apache.kafka.common.serialization.StringSerializer, is set by the relay",
    "bootstrap.servers, other:9092, use kafka.bootstrap.servers",
    "lnger.ms, 5, is not a Kafka producer setting",
    "linger.ms, soon, kafka.producer.*: Invalid value soon"
  })
  void refusesUnsafeOrInvalidOverrides(String key, String value, String reason) {
    assertThat(settings(Map.of(key, value)).problems()).singleElement().asString().contains(reason);
  }

  @ParameterizedTest(name = "{0}={1} is accepted")
  @CsvSource({
    "acks, all",
    "acks, -1",
    "enable.idempotence, true",
    "max.in.flight.requests.per.connection, 1",
    "linger.ms, 20",
    "compression.type, zstd"
  })
  void acceptsSafeOverrides(String key, String value) {
    ProducerSettings s = settings(Map.of(key, value));

    assertThat(s.problems()).isEmpty();
    assertThat(s.asProperties("x")).containsEntry(key, value);
  }

  @ParameterizedTest(name = "acks={0} is taken as all")
  @CsvSource({"ALL", "All", " all "})
  void takesAcksAllInAnyCase(String value) {
    ProducerSettings s = settings(Map.of("acks", value));

    assertThat(s.problems()).isEmpty();
    assertThat(s.asProperties("x")).containsEntry("acks", "all");
    assertThat(s.effective("acks")).isEqualTo("all");
  }
}
