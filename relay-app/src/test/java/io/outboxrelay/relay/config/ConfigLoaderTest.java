package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

  private static Map<String, String> minimalCdc() {
    Map<String, String> m = new HashMap<>();
    m.put("source.host", "db.internal");
    m.put("source.database", "shop");
    m.put("source.user", "outbox_relay");
    m.put("source.password", "s3cret-pw");
    m.put("kafka.bootstrap.servers", "k1:9092");
    m.put("cdc.server.id", "5401");
    return m;
  }

  private static RelayConfig parse(Map<String, String> raw) throws ConfigException {
    return new ConfigLoader(Map.of()).parse(raw, null);
  }

  private static ConfigException failure(Map<String, String> raw) {
    try {
      parse(raw);
    } catch (ConfigException e) {
      return e;
    }
    throw new AssertionError("expected a ConfigException");
  }

  @Test
  void appliesDefaultsToAMinimalCdcConfiguration() throws ConfigException {
    RelayConfig config = parse(minimalCdc());

    assertThat(config.mode()).isEqualTo(RelayMode.CDC);
    assertThat(config.name()).isEqualTo("outbox-relay");
    assertThat(config.source().flavor()).isEqualTo(SourceFlavor.MARIADB);
    assertThat(config.source().port()).isEqualTo(3306);
    assertThat(config.source().table()).isEqualTo("outbox_events");
    assertThat(config.topicTemplate().toString()).isEqualTo("outbox.event.${aggregate_type}");
    assertThat(config.cdc().serverId()).isEqualTo(5401);
    assertThat(config.cdc().batchSize()).isEqualTo(4096);
    assertThat(config.cdc().poisonAction()).isEqualTo(PoisonAction.FAIL);
    assertThat(config.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void reportsEveryProblemAtOnce() {
    Map<String, String> raw = new HashMap<>();
    raw.put("source.port", "abc");
    raw.put("cdc.batch.size", "0");
    raw.put("relay.stats.interval", "30");
    raw.put("kafka.producer.acks", "1");

    ConfigException e = failure(raw);

    assertThat(e.problems())
        .anySatisfy(p -> assertThat(p).startsWith("source.port: 'abc' is not an integer"))
        .anySatisfy(p -> assertThat(p).startsWith("cdc.batch.size: must be between 1 and 65536"))
        .anySatisfy(p -> assertThat(p).startsWith("relay.stats.interval: '30' is not a duration"))
        .anySatisfy(p -> assertThat(p).startsWith("source.host is required"))
        .anySatisfy(p -> assertThat(p).startsWith("source.database is required"))
        .anySatisfy(p -> assertThat(p).startsWith("source.user is required"))
        .anySatisfy(p -> assertThat(p).startsWith("kafka.bootstrap.servers is required"))
        .anySatisfy(p -> assertThat(p).startsWith("cdc.server.id is required in cdc mode"))
        .anySatisfy(p -> assertThat(p).startsWith("kafka.producer.acks=1 lets Kafka"));
    assertThat(e.problems()).allSatisfy(p -> assertThat(p).doesNotContain("\n"));
  }

  @Test
  void rejectsUnknownKeysAndSuggestsTheClosestOne() {
    Map<String, String> raw = minimalCdc();
    raw.put("source.pasword", "x");
    raw.put("totally.unrelated", "y");

    ConfigException e = failure(raw);

    assertThat(e.problems())
        .containsExactlyInAnyOrder(
            "unknown key source.pasword: did you mean source.password?",
            "unknown key totally.unrelated: see config/relay.properties.example for the keys"
                + " (Kafka producer settings go under kafka.producer., Debezium settings under"
                + " debezium.)");
  }

  @Test
  void acceptsPassThroughKeysUnderTheirPrefixes() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("kafka.producer.compression.type", "zstd");
    raw.put("debezium.database.ssl.mode", "required");

    RelayConfig config = parse(raw);

    assertThat(config.producer().asProperties("x")).containsEntry("compression.type", "zstd");
    assertThat(config.cdc().debeziumOverrides()).containsEntry("database.ssl.mode", "required");
  }

  @Test
  void refusesDebeziumOverridesOfWhatTheRelayManages() {
    Map<String, String> raw = minimalCdc();
    raw.put("debezium.offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    raw.put("debezium.database.server.id", "7");
    raw.put("debezium.table.include.list", "shop.orders");

    assertThat(failure(raw).problems())
        .containsExactlyInAnyOrder(
            "debezium.offset.storage is managed by the relay: positions are always stored in"
                + " source.database (cdc.offsets.table)",
            "debezium.database.server.id is managed by the relay: set cdc.server.id",
            "debezium.table.include.list is managed by the relay: set it with the source.* keys");
  }

  @Test
  void commandLineModeOverridesTheFile() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("mode", "polling");

    assertThat(new ConfigLoader(Map.of()).parse(raw, null).mode()).isEqualTo(RelayMode.POLLING);
    assertThat(new ConfigLoader(Map.of()).parse(raw, RelayMode.CDC).mode())
        .isEqualTo(RelayMode.CDC);
  }

  @Test
  void rejectsPostgresqlInCdcMode() {
    Map<String, String> raw = minimalCdc();
    raw.put("source.flavor", "postgresql");

    assertThat(failure(raw).problems())
        .anySatisfy(
            p -> assertThat(p).startsWith("source.flavor=postgresql supports only polling"));
  }

  @Test
  void rejectsAnUnknownModeWithTheAllowedValues() {
    Map<String, String> raw = minimalCdc();
    raw.put("mode", "streaming");

    assertThat(failure(raw).problems()).contains("mode: 'streaming' is not one of cdc|polling");
  }

  @Test
  void resolvesEnvironmentAndFileReferences(@TempDir Path dir) throws Exception {
    Path secretFile = dir.resolve("pw");
    Files.writeString(secretFile, "from-file\n");
    Map<String, String> raw = minimalCdc();
    raw.put("source.password", "${file:" + secretFile + "}");
    raw.put("source.host", "${env:DB_HOST}");

    RelayConfig config = new ConfigLoader(Map.of("DB_HOST", "db-7.internal")).parse(raw, null);

    assertThat(config.source().host()).isEqualTo("db-7.internal");
    assertThat(config.source().password().reveal()).isEqualTo("from-file");
  }

  @Test
  void reportsAnUnsetEnvironmentVariable() {
    Map<String, String> raw = minimalCdc();
    raw.put("source.password", "${env:OUTBOX_DB_PASSWORD}");

    assertThat(failure(raw).problems())
        .containsExactly(
            "source.password refers to ${env:OUTBOX_DB_PASSWORD}, which is not set: export it or"
                + " change the value");
  }

  @Test
  void neverPrintsSecrets() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put(
        "kafka.producer.sasl.jaas.config",
        "org.apache.kafka...PlainLoginModule password=\"k-pw\";");
    raw.put("kafka.producer.ssl.truststore.password", "ts-pw");
    raw.put("debezium.database.ssl.keystore.password", "ks-pw");

    RelayConfig config = parse(raw);

    assertThat(config.describe())
        .doesNotContain("s3cret-pw", "k-pw", "ts-pw", "ks-pw")
        .contains("source.password = [hidden]")
        .contains("kafka.producer.sasl.jaas.config = [hidden]")
        .contains("kafka.producer.ssl.truststore.password = [hidden]")
        .contains("debezium.database.ssl.keystore.password = [hidden]")
        .contains("kafka.producer.acks = all");
    assertThat(config.source().password().toString()).isEqualTo("[hidden]");
    assertThat(config.source().toString()).doesNotContain("s3cret-pw");
  }

  @Test
  void readsAPropertiesFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("relay.properties");
    StringBuilder text = new StringBuilder();
    minimalCdc().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    text.append("relay.name=orders-relay\n");
    Files.writeString(file, text);

    RelayConfig config = new ConfigLoader(Map.of()).load(file, null);

    assertThat(config.name()).isEqualTo("orders-relay");
  }

  @Test
  void failsClearlyWhenTheFileIsMissing(@TempDir Path dir) {
    assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(dir.resolve("nope"), null))
        .isInstanceOf(IOException.class);
  }

  private static Map<String, String> minimalPolling() {
    Map<String, String> m = minimalCdc();
    m.remove("cdc.server.id");
    m.put("mode", "polling");
    return m;
  }

  @Test
  void appliesPollingDefaultsWithALeaseThatOutlastsTheProducer() throws ConfigException {
    RelayConfig config = parse(minimalPolling());

    assertThat(config.cdc()).isNull();
    assertThat(config.polling().workers()).isEqualTo(4);
    assertThat(config.polling().batchSize()).isEqualTo(500);
    assertThat(config.polling().lease()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.polling().ordering()).isEqualTo(Ordering.AGGREGATE);
    assertThat(config.polling().maxAttempts()).isEqualTo(5);
    assertThat(config.producer().effective("delivery.timeout.ms")).isEqualTo("30000");
  }

  @Test
  void refusesALeaseThatCannotOutlastTheProducersTimeouts() {
    Map<String, String> raw = minimalPolling();
    raw.put("polling.lease", "30s");
    raw.put("kafka.producer.delivery.timeout.ms", "25000");

    assertThat(failure(raw).problems())
        .singleElement()
        .asString()
        .startsWith("polling.lease=30s is shorter than the worst-case time to publish a batch")
        .contains("10000 + kafka.producer.delivery.timeout.ms 25000 + 5s = 40s");
  }

  @Test
  void acceptsAShortLeaseWithShortProducerTimeouts() throws ConfigException {
    Map<String, String> raw = minimalPolling();
    raw.put("polling.lease", "10s");
    raw.put("kafka.producer.delivery.timeout.ms", "3000");
    raw.put("kafka.producer.request.timeout.ms", "1000");
    raw.put("kafka.producer.max.block.ms", "1000");

    assertThat(parse(raw).polling().lease()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void refusesAClaimWindowSmallerThanTheBatch() {
    Map<String, String> raw = minimalPolling();
    raw.put("polling.batch.size", "1000");
    raw.put("polling.claim.window", "500");

    assertThat(failure(raw).problems())
        .containsExactly(
            "polling.claim.window=500 is smaller than polling.batch.size=1000: a claim could never"
                + " fill its batch; raise the window");
  }

  @Test
  void acceptsPostgresqlInPollingMode() throws ConfigException {
    Map<String, String> raw = minimalPolling();
    raw.put("source.flavor", "postgresql");

    RelayConfig config = parse(raw);
    assertThat(config.source().port()).isEqualTo(5432);
    assertThat(config.source().jdbcUrl()).startsWith("jdbc:postgresql://db.internal:5432/shop");
  }

  @Test
  void rejectsABackoffWhoseStartExceedsItsCap() {
    Map<String, String> raw = minimalCdc();
    raw.put("cdc.retry.backoff.initial", "1m");
    raw.put("cdc.retry.backoff.max", "10s");

    assertThat(failure(raw).problems())
        .containsExactly(
            "cdc.retry.backoff.initial must not exceed cdc.retry.backoff.max: lower the first or"
                + " raise the second");
  }
}
