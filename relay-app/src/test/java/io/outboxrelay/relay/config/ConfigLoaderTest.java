package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {

  static Map<String, String> minimalCdc() {
    return entries(
        List.of(
            "source.host=db.internal",
            "source.database=shop",
            "source.user=outbox_relay",
            "source.password=s3cret-pw",
            "kafka.bootstrap.servers=k1:9092",
            "cdc.server.id=5401"));
  }

  /** {@code key=value} lines as a mutable map. */
  static Map<String, String> entries(List<String> lines) {
    Map<String, String> m = new HashMap<>();
    for (String line : lines) {
      int eq = line.indexOf('=');
      m.put(line.substring(0, eq), line.substring(eq + 1));
    }
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

  /** A properties file with the minimal CDC entries followed by {@code extra} lines. */
  private static Path writeConfig(Path dir, String extra, String prefix) throws IOException {
    Path file = dir.resolve("relay.properties");
    StringBuilder text = new StringBuilder(prefix);
    minimalCdc().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    text.append(extra);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static Path writeConfig(Path dir, String extra) throws IOException {
    return writeConfig(dir, extra, "");
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
    assertThat(config.cdc().batchSize()).isEqualTo(1024);
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
  void acceptsPassThroughKeysUnderTheirPrefixes() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("kafka.producer.compression.type", "zstd");
    raw.put("debezium.database.ssl.mode", "required");

    RelayConfig config = parse(raw);

    assertThat(config.producer().asProperties("x")).containsEntry("compression.type", "zstd");
    assertThat(config.cdc().debeziumOverrides()).containsEntry("database.ssl.mode", "required");
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
  void acceptsPostgresqlInCdcModeWithoutAServerId() throws Exception {
    Map<String, String> raw = minimalCdc();
    raw.remove("cdc.server.id");
    raw.put("source.flavor", "postgresql");

    RelayConfig config = parse(raw);

    assertThat(config.mode()).isEqualTo(RelayMode.CDC);
    assertThat(config.source().flavor()).isEqualTo(SourceFlavor.POSTGRESQL);
    assertThat(config.cdc().serverId()).isZero();
  }

  @Test
  void acceptsExactlyOnceAndRetentionForCdcOnPostgresql() throws Exception {
    Map<String, String> raw = minimalCdc();
    raw.remove("cdc.server.id");
    raw.put("source.flavor", "postgresql");
    raw.put("cdc.retention", "7d");
    raw.put("delivery.guarantee", "exactly-once");

    RelayConfig config = parse(raw);

    assertThat(config.delivery().exactlyOnce()).isTrue();
    assertThat(config.cdc().retention()).isEqualTo(java.time.Duration.ofDays(7));
  }

  @Test
  void stillRequiresAServerIdForABinlogReader() {
    Map<String, String> raw = minimalCdc();
    raw.remove("cdc.server.id");
    raw.put("source.flavor", "mysql");

    assertThat(failure(raw).problems())
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("cdc.server.id is required in cdc mode: Replication server id"));
  }

  @Test
  void rejectsCdcRetentionOnMysqlAndAcceptsItOnMariaDb() throws Exception {
    Map<String, String> raw = minimalCdc();
    raw.put("cdc.retention", "7d");
    raw.put("source.flavor", "mysql");
    assertThat(failure(raw).problems())
        .contains(
            "cdc.retention needs MariaDB (a consistent snapshot with its binlog position); MySQL"
                + " has none: set cdc.retention=0ms");

    raw.put("source.flavor", "mariadb");
    assertThat(new ConfigLoader(Map.of()).parse(raw, null).cdc().retention())
        .isEqualTo(java.time.Duration.ofDays(7));
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
    Path file = writeConfig(dir, "relay.name=orders-relay\n");

    RelayConfig config = new ConfigLoader(Map.of()).load(file, null);

    assertThat(config.name()).isEqualTo("orders-relay");
  }

  @Test
  void failsClearlyWhenTheFileIsMissing(@TempDir Path dir) {
    assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(dir.resolve("nope"), null))
        .isInstanceOf(IOException.class);
  }

  static Map<String, String> minimalPolling() {
    Map<String, String> m = minimalCdc();
    m.remove("cdc.server.id");
    m.put("mode", "polling");
    return m;
  }

  @Test
  void appliesPollingDefaultsWithAShortRenewedLease() throws ConfigException {
    RelayConfig config = parse(minimalPolling());

    assertThat(config.cdc()).isNull();
    assertThat(config.polling().workers()).isEqualTo(4);
    assertThat(config.polling().batchSize()).isEqualTo(500);
    assertThat(config.polling().lease()).isEqualTo(Duration.ofSeconds(8));
    assertThat(config.polling().ordering()).isEqualTo(Ordering.AGGREGATE);
    assertThat(config.polling().maxAttempts()).isEqualTo(5);
    assertThat(config.producer().effective("delivery.timeout.ms")).isEqualTo("30000");
  }

  @Test
  void acceptsALeaseShorterThanTheProducersTimeoutsBecauseItIsRenewed() throws ConfigException {
    Map<String, String> raw = minimalPolling();
    raw.put("polling.lease", "5s");
    raw.put("kafka.producer.delivery.timeout.ms", "120000");
    raw.put("kafka.producer.max.block.ms", String.valueOf(Long.MAX_VALUE));

    assertThat(parse(raw).polling().lease()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void refusesExactlyOnceInPollingModeSayingWhy() {
    Map<String, String> raw = minimalPolling();
    raw.put("delivery.guarantee", "exactly-once");

    assertThat(failure(raw).problems())
        .singleElement()
        .asString()
        .startsWith(
            "delivery.guarantee=exactly-once needs CDC mode: a polling relay marks each row")
        .doesNotContain("\n");
  }

  @Test
  void derivesTheTransactionalIdFromTheRelayTheDatabaseAndTheTable() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("delivery.guarantee", "exactly-once");
    raw.put("relay.name", "orders");

    RelayConfig config = parse(raw);
    assertThat(config.delivery().exactlyOnce()).isTrue();
    assertThat(config.delivery().transactionalId())
        .isEqualTo("outbox-relay.orders." + config.source().database() + ".outbox_events");
    assertThat(config.delivery().progressTopic()).isEqualTo("outbox-relay-progress");
    assertThat(config.effective()).containsEntry("delivery.guarantee", "exactly-once");

    raw.put("delivery.transactional.id", "orders-tx");
    raw.put("delivery.progress.topic", "orders-progress");
    RelayConfig overridden = parse(raw);
    assertThat(overridden.delivery().transactionalId()).isEqualTo("orders-tx");
    // Two producers take turns, each under an id of the prefix.
    assertThat(overridden.delivery().transactionalIds())
        .containsExactly("orders-tx.0", "orders-tx.1");
    assertThat(overridden.delivery().progressTopic()).isEqualTo("orders-progress");
  }

  @Test
  void isAtLeastOnceByDefaultAndTakesTheGuaranteeWithHyphensOrUnderscores() throws ConfigException {
    assertThat(parse(minimalCdc()).delivery().exactlyOnce()).isFalse();
    Map<String, String> raw = minimalCdc();
    raw.put("delivery.guarantee", "EXACTLY_ONCE");
    assertThat(parse(raw).delivery().exactlyOnce()).isTrue();
    raw.put("delivery.guarantee", "once");
    assertThat(failure(raw).problems())
        .singleElement()
        .asString()
        .contains("at-least-once|exactly-once");
  }

  @Test
  void acceptsPostgresqlInPollingMode() throws ConfigException {
    Map<String, String> raw = minimalPolling();
    raw.put("source.flavor", "postgresql");

    RelayConfig config = parse(raw);
    assertThat(config.source().port()).isEqualTo(5432);
    assertThat(config.source().jdbcUrl()).startsWith("jdbc:postgresql://db.internal:5432/shop");
  }

  // ---------------------------------------------------------------- refused values

  /**
   * A configuration that differs from a minimal one by a few {@code key=value} entries, and the
   * problems it is told, all of them.
   */
  record Refused(String name, boolean polling, List<String> set, List<String> problems) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Refused> refused() {
    return Stream.of(
        new Refused(
            "rejects unknown keys and suggests the closest one",
            false,
            List.of("source.pasword=x", "totally.unrelated=y"),
            List.of(
                "unknown key source.pasword: did you mean source.password?",
                "unknown key totally.unrelated: see config/relay.properties.example for the keys"
                    + " (Kafka producer settings go under kafka.producer., Debezium settings under"
                    + " debezium.)")),
        new Refused(
            "refuses Debezium overrides of what the relay manages",
            false,
            List.of(
                "debezium.offset.storage=org.apache.kafka.connect.storage.FileOffsetBackingStore",
                "debezium.database.server.id=7",
                "debezium.table.include.list=shop.orders"),
            List.of(
                "debezium.offset.storage is managed by the relay: positions are always stored in"
                    + " source.database (cdc.offsets.table)",
                "debezium.database.server.id is managed by the relay: set cdc.server.id",
                "debezium.table.include.list is managed by the relay: set it with the source.*"
                    + " keys")),
        new Refused(
            "rejects an unknown mode with the allowed values",
            false,
            List.of("mode=streaming"),
            List.of("mode: 'streaming' is not one of cdc|polling")),
        new Refused(
            "reports an unset environment variable",
            false,
            List.of("source.password=${env:OUTBOX_DB_PASSWORD}"),
            List.of(
                "source.password refers to ${env:OUTBOX_DB_PASSWORD}, which is not set: export it"
                    + " or change the value")),
        new Refused(
            "reports a secret file that does not exist",
            false,
            List.of("source.password=${file:/nonexistent/db-password}"),
            List.of(
                "source.password refers to ${file:/nonexistent/db-password}, which does not"
                    + " exist")),
        new Refused(
            "refuses a lease too short to be renewed",
            true,
            List.of("polling.lease=1s"),
            List.of("polling.lease: must be between 2s and 1d, got 1s")),
        new Refused(
            "refuses a claim window smaller than the batch",
            true,
            List.of("polling.batch.size=1000", "polling.claim.window=500"),
            List.of(
                "polling.claim.window=500 is smaller than polling.batch.size=1000: a claim could"
                    + " never fill its batch; raise the window")),
        new Refused(
            "rejects a backoff whose start exceeds its cap",
            false,
            List.of("cdc.retry.backoff.initial=1m", "cdc.retry.backoff.max=10s"),
            List.of(
                "cdc.retry.backoff.initial must not exceed cdc.retry.backoff.max: lower the first"
                    + " or raise the second")),
        new Refused(
            "rejects a polling backoff whose start exceeds its cap",
            true,
            List.of("polling.retry.backoff.initial=5m", "polling.retry.backoff.max=2m"),
            List.of(
                "polling.retry.backoff.initial must not exceed polling.retry.backoff.max: lower the"
                    + " first or raise the second")),
        new Refused(
            "rejects a leader renewal interval above a third of the lease",
            false,
            List.of("cdc.leader.lease=6s", "cdc.leader.renew.interval=2001ms"),
            List.of(
                "cdc.leader.renew.interval=2001ms is more than a third of cdc.leader.lease=6s: a"
                    + " single late renewal would stop the leader; lower the interval or raise the"
                    + " lease")),
        new Refused(
            "refuses overflowing polling durations with one line each",
            true,
            List.of(
                "polling.lease=9223372036854775807s",
                "polling.retry.backoff.max=9223372036854775807ms",
                "polling.retention=99999999999999999999d"),
            List.of(
                "polling.lease: '9223372036854775807s' is out of range: must be between 2s and 1d",
                "polling.retry.backoff.max: must be between 1ms and 1d, got 9223372036854775807ms",
                "polling.retention: '99999999999999999999d' is out of range: must be between 0ms"
                    + " and 3650d")),
        new Refused(
            "lists every malformed bootstrap server at once",
            false,
            List.of("kafka.bootstrap.servers=k1,k2:0,k3:9092", "cdc.batch.size=0"),
            List.of(
                "kafka.bootstrap.servers: 'k1' has no port: write host:port, e.g. k1:9092",
                "kafka.bootstrap.servers: 'k2:0' has port '0': a port is a number from 1 to 65535",
                "cdc.batch.size: must be between 1 and 65536, got 0")),
        new Refused(
            "refuses a fractional multiplier below one",
            true,
            List.of("polling.retry.backoff.multiplier=0.5"),
            List.of("polling.retry.backoff.multiplier: must be between 1 and 100, got 0.5")),
        new Refused(
            "refuses a multiplier written with an exponent",
            true,
            List.of("polling.retry.backoff.multiplier=1e2"),
            List.of("polling.retry.backoff.multiplier: '1e2' is not a number (e.g. 2 or 1.5)")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusesWithExactlyTheseProblems(Refused c) {
    Map<String, String> raw = c.polling() ? minimalPolling() : minimalCdc();
    raw.putAll(entries(c.set()));

    assertThat(failure(raw).problems()).containsExactlyInAnyOrderElementsOf(c.problems());
  }

  @Test
  void acceptsAFractionalBackoffMultiplier() throws ConfigException {
    Map<String, String> raw = minimalPolling();
    raw.put("polling.retry.backoff.multiplier", "1.5");

    RelayConfig config = parse(raw);

    assertThat(config.polling().backoffMultiplier()).isEqualTo(1.5);
    assertThat(config.describe()).contains("polling.retry.backoff.multiplier = 1.5");
    assertThat(parse(minimalPolling()).describe())
        .contains("polling.retry.backoff.multiplier = 5\n");
  }

  // ---------------------------------------------------------------- numbers and durations

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "relay.stats.interval | 9223372036854775807h | relay.stats.interval:"
            + " '9223372036854775807h' is out of range: must be between 1s and 1d",
        "relay.stats.interval | 99999999999999999999s | relay.stats.interval:"
            + " '99999999999999999999s' is out of range: must be between 1s and 1d",
        "relay.shutdown.timeout | 106751991167301d | relay.shutdown.timeout:"
            + " '106751991167301d' is out of range: must be between 1s and 1d",
        "cdc.heartbeat.interval | 25d | cdc.heartbeat.interval: must be between 100ms and 1d,"
            + " got 25d",
        "source.port | 99999999999 | source.port: '99999999999' is out of range: must be between"
            + " 1 and 65535",
        "source.port | -99999999999999999999 | source.port: '-99999999999999999999' is out of"
            + " range: must be between 1 and 65535",
        "cdc.batch.size | 2147483648 | cdc.batch.size: '2147483648' is out of range: must be"
            + " between 1 and 65536",
        "cdc.server.id | 4294967296 | cdc.server.id: must be between 1 and 4294967295, got"
            + " 4294967296",
        "cdc.server.id | 99999999999999999999 | cdc.server.id: '99999999999999999999' is out of"
            + " range: must be between 1 and 4294967295",
        "source.port | 1e3 | source.port: '1e3' is not an integer",
        "cdc.commit.interval | -1s | cdc.commit.interval: '-1s' is not a duration: write a whole"
            + " number and a unit (ms, s, m, h or d), e.g. 250ms, 30s, 5m, 2h, 7d"
      })
  void saysWhatTheRangeIsForValuesTooLargeForTheirKey(String key, String value, String problem) {
    Map<String, String> raw = minimalCdc();
    raw.put(key, value);

    assertThat(failure(raw).problems()).containsExactly(problem);
  }

  @Test
  void everyNumberAndDurationKeyHasARange() {
    for (ConfigKey<?> key : RelayConfigKeys.ALL) {
      if (key.type() == ValueType.INT
          || key.type() == ValueType.LONG
          || key.type() == ValueType.DOUBLE
          || key.type() == ValueType.DURATION_TYPE) {
        assertThat(key.range()).as(key.name()).isNotNull();
      }
    }
  }

  @Test
  void everyKeyAnswersHostileValuesWithOneLineProblemsOnly() {
    List<String> hostile =
        List.of(
            "9223372036854775807h",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999999999999999999999s",
            "106751991167301d",
            "0",
            "-1",
            "0x10",
            "1e9",
            "NaN",
            "\u0661\u0662", // Arabic-Indic digits
            "\u0000",
            "${file:\u0000}",
            "${env:}",
            "${file:/nonexistent/secret}",
            "",
            "\u202e");
    for (RelayMode mode : RelayMode.values()) {
      for (ConfigKey<?> key : RelayConfigKeys.ALL) {
        for (String value : hostile) {
          Map<String, String> raw = mode == RelayMode.CDC ? minimalCdc() : minimalPolling();
          raw.put(key.name(), value);
          try {
            new ConfigLoader(Map.of()).parse(raw, mode);
          } catch (ConfigException e) {
            assertThat(e.problems())
                .as("%s=%s in %s mode", key.name(), value, mode)
                .isNotEmpty()
                .allSatisfy(p -> assertThat(p).doesNotContain("\n").isNotBlank());
          }
        }
      }
    }
  }

  @Test
  void acceptsDaysInDurations() throws ConfigException {
    Map<String, String> raw = minimalPolling();
    raw.put("polling.retention", "7d"); // docs/polling.md's example
    raw.put("polling.retry.backoff.max", "1D");

    RelayConfig config = parse(raw);

    assertThat(config.polling().retention()).isEqualTo(Duration.ofDays(7));
    assertThat(config.polling().backoffMax()).isEqualTo(Duration.ofDays(1));
    assertThat(config.describe()).contains("polling.retention = 7d");
  }

  @Test
  void acceptsTheLargestServerIdMariaDbAllows() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("cdc.server.id", "4294967295");

    assertThat(parse(raw).cdc().serverId()).isEqualTo(4294967295L);
  }

  // ---------------------------------------------------------------- Kafka

  @Test
  void acceptsAcksAllInAnyCaseAndPassesItOnInLowerCase() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("kafka.producer.acks", "ALL");

    RelayConfig config = parse(raw);

    assertThat(config.producer().asProperties("x")).containsEntry("acks", "all");
    assertThat(config.describe()).contains("kafka.producer.acks = all");
  }

  @Test
  void leavesTheResolutionOfBootstrapHostsToStartup() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("kafka.bootstrap.servers", "kafka.invalid:9092");

    assertThat(parse(raw).producer().bootstrapServers()).isEqualTo("kafka.invalid:9092");
  }

  // ---------------------------------------------------------------- Debezium settings

  @Test
  void warnsAboutADebeziumSettingDebeziumDoesNotDefineAndSuggestsTheNearest()
      throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("debezium.snapshot.mdoe", "initial");
    raw.put("debezium.snapshot.mode", "initial");
    raw.put("debezium.totally.unrelated", "x");

    RelayConfig config = parse(raw);

    assertThat(config.warnings())
        .containsExactly(
            "debezium.snapshot.mdoe is not a setting of Debezium's MariaDB connector or engine,"
                + " and Debezium ignores it: did you mean debezium.snapshot.mode?",
            "debezium.totally.unrelated is not a setting of Debezium's MariaDB connector or"
                + " engine, and Debezium ignores it: check the spelling against the Debezium"
                + " documentation");
    assertThat(config.cdc().debeziumOverrides()).containsKey("snapshot.mdoe");
  }

  @Test
  void knowsDebeziumsConnectorEngineStoreAndPatternSettings() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.putAll(
        entries(
            List.of(
                "debezium.snapshot.mode=initial",
                "debezium.binary.handling.mode=hex", // common, not in the connector's ALL_FIELDS
                "debezium.connect.keep.alive.interval.ms=60000", // binlog connectors
                "debezium.record.processing.order=ORDERED", // the async engine
                "debezium.errors.max.retries=3",
                "debezium.topic.delimiter=.", // topic naming
                "debezium.schema.history.internal.skip.unparseable.ddl=true",
                "debezium.offset.storage.jdbc.connection.retry.max.attempts=5", // JDBC store
                "debezium.column.mask.with.12.chars=shop.orders.card",
                "debezium.column.mask.hash.SHA-256.with.salt.CzQ=shop.orders.email",
                "debezium.snapshot.select.statement.overrides.shop.orders=SELECT 1",
                "debezium.transforms=route",
                "debezium.transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter",
                "debezium.converters=bool",
                "debezium.bool.type=io.debezium.connector.binlog.converters.TinyIntOneToBoolean",
                "debezium.database.ssl.mode=required",
                "debezium.database.useSSL=true", // a JDBC driver property, passed on
                "debezium.driver.connectTimeout=5000")));

    assertThat(parse(raw).warnings()).isEmpty();
  }

  @Test
  void warnsAboutADriverPassThroughOnlyWhenItIsATypoOfADebeziumSetting() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("debezium.database.sll.mode", "required");

    assertThat(parse(raw).warnings())
        .containsExactly(
            "debezium.database.sll.mode is not a Debezium setting, so Debezium passes it to the"
                + " JDBC driver as sll.mode: did you mean debezium.database.ssl.mode?");
  }

  @Test
  void checksDebeziumSettingsAgainstTheMySqlConnectorForMySql() throws ConfigException {
    Map<String, String> raw = minimalCdc();
    raw.put("source.flavor", "mysql");
    raw.put("debezium.snapshot.mdoe", "initial");

    assertThat(parse(raw).warnings())
        .singleElement()
        .asString()
        .startsWith("debezium.snapshot.mdoe is not a setting of Debezium's MySQL connector");
  }

  @Test
  void doesNotWarnAboutDebeziumSettingsTheRelayRefuses() {
    Map<String, String> raw = minimalCdc();
    raw.put("debezium.offset.storage", "x");

    assertThat(failure(raw).warnings()).isEmpty();
  }

  // ---------------------------------------------------------------- the file

  @Test
  void warnsAboutAKeyGivenTwiceWithItsLinesAndKeepsTheLast(@TempDir Path dir) throws Exception {
    Path file = writeConfig(dir, "relay.name=first\n# relay.name=commented\nrelay.name = second\n");

    RelayConfig config = new ConfigLoader(Map.of()).load(file, null);

    assertThat(config.name()).isEqualTo("second");
    assertThat(config.warnings())
        .containsExactly(
            "relay.name is given 2 times in "
                + file
                + " (lines 7, 9): the last one counts; remove the others");
  }

  @Test
  void reportsADuplicateKeyAlongsideTheProblemsItMayCause(@TempDir Path dir) throws Exception {
    Path file = writeConfig(dir, "cdc.batch.size=100\ncdc.batch.size=0\n");

    ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class, () -> new ConfigLoader(Map.of()).load(file, null));

    assertThat(e.problems()).containsExactly("cdc.batch.size: must be between 1 and 65536, got 0");
    assertThat(e.warnings()).singleElement().asString().startsWith("cdc.batch.size is given 2");
  }

  @Test
  void ignoresAUtf8ByteOrderMark(@TempDir Path dir) throws Exception {
    Path file = writeConfig(dir, "", "\uFEFF");

    RelayConfig config = new ConfigLoader(Map.of()).load(file, null);

    assertThat(config.warnings()).isEmpty();
    assertThat(config.source().host()).isEqualTo("db.internal");
  }

  @Test
  void saysWhichLineIsNotUtf8(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("relay.properties");
    Files.write(
        file,
        "source.host=db\nsource.user=r\u00e9lay\nsource.password=\n"
            .getBytes(StandardCharsets.ISO_8859_1));

    ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class, () -> new ConfigLoader(Map.of()).load(file, null));

    assertThat(e.problems())
        .containsExactly(file + " is not UTF-8 text (line 2): save it as UTF-8");
  }

  @Test
  void treatsABackslashInAValueAsAnEscapeButReadsSecretFilesAsTheyAre(@TempDir Path dir)
      throws Exception {
    // What docs/configuration.md warns about: in the properties file \n is a newline and a lone \
    // vanishes.
    Path secret = dir.resolve("pw");
    Files.writeString(secret, "C:\\new\\pw\n");
    Path file =
        writeConfig(
            dir, "source.user=dom\\ain\\\\user\n" + "source.password=${file:" + secret + "}\n");

    RelayConfig config = new ConfigLoader(Map.of()).load(file, null);

    assertThat(config.source().user()).isEqualTo("domain\\user");
    assertThat(config.source().password().reveal()).isEqualTo("C:\\new\\pw");
  }

  // ---------------------------------------------------------------- --mode

  @Test
  void tellsWhenTheCommandLineModeOverridesTheFilesMode(@TempDir Path dir) throws Exception {
    Path file = writeConfig(dir, "mode=cdc\n");
    ConfigLoader loader = new ConfigLoader(Map.of());

    assertThat(loader.load(file, RelayMode.POLLING).notices())
        .containsExactly("mode=polling from --mode overrides mode=cdc in " + file);
    assertThat(loader.load(file, RelayMode.CDC).notices()).isEmpty();
    assertThat(loader.load(file, null).notices()).isEmpty();
  }

  @Test
  void saysNothingWhenTheFileLeavesTheModeToTheCommandLine() throws ConfigException {
    assertThat(new ConfigLoader(Map.of()).parse(minimalCdc(), RelayMode.POLLING).notices())
        .isEmpty();
  }

  @Test
  void readsTheColumnSettingsAndRequiresAnOptionalColumnOnlyWhenItsKeyIsSet()
      throws ConfigException {
    RelayConfig defaults = parse(minimalCdc());
    assertThat(defaults.source().columns()).isEqualTo(io.outboxrelay.router.ColumnMapping.DEFAULT);
    assertThat(defaults.source().sequenceColumn()).isEqualTo("id");
    assertThat(defaults.source().requiredOptionalColumns()).isEmpty();
    // Every own header, as the router lists them (its OutboxColumnTest pins the list).
    assertThat(defaults.routerHeaders()).isEqualTo(io.outboxrelay.router.OutboxHeaders.ALL);

    Map<String, String> raw = minimalCdc();
    raw.put("source.column.aggregate.type", "aggregatetype");
    raw.put("source.column.headers", "hdrs");
    raw.put("source.column.sequence", "relay_seq");
    raw.put("source.column.additional.placement", "timestamp:header:eventTimestamp");
    raw.put("router.headers", "id, aggregate_id");
    RelayConfig config = parse(raw);

    assertThat(config.source().columns().aggregateType()).isEqualTo("aggregatetype");
    assertThat(config.source().columns().headers()).isEqualTo("hdrs");
    assertThat(config.source().requiredOptionalColumns()).containsExactly("hdrs");
    assertThat(config.source().sequenceColumn()).isEqualTo("relay_seq");
    assertThat(config.source().columns().placements())
        .containsExactly(new io.outboxrelay.router.HeaderPlacement("timestamp", "eventTimestamp"));
    assertThat(config.routerHeaders()).containsExactly("id", "aggregate_id");
    assertThat(config.eventRouter().headers()).containsExactly("id", "aggregate_id");
  }

  @Test
  void refusesUnsupportedPlacementsOwnHeadersWithoutIdAndColumnsThatAreNotIdentifiers() {
    Map<String, String> raw = minimalCdc();
    raw.put("source.column.additional.placement", "type:envelope:eventType");
    raw.put("router.headers", "event_type");
    raw.put("source.column.payload", "pay load");
    raw.put("source.column.event.id", "");

    assertThatThrownBy(() -> parse(raw))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.column.additional.placement: 'type:envelope:eventType' asks"
                + " for the envelope placement, which is not supported")
        .hasMessageContaining("router.headers: id is missing: consumers deduplicate on it")
        .hasMessageContaining("source.column.payload: 'pay load' is not a plain SQL identifier")
        .hasMessageContaining("source.column.event.id: '' is not a plain SQL identifier");
  }

  /**
   * Regression: {@code source.column.event.id=aggregate_id} was accepted, and consumers dropped
   * every later event of an aggregate as a duplicate of its first; a sequence on another role's
   * column marked rows sharing a value PUBLISHED together.
   */
  @Test
  void refusesOneColumnInTwoRolesInBothModesWithEveryOtherProblem() throws Exception {
    for (Map<String, String> raw : List.of(minimalCdc(), minimalPolling())) {
      raw.put("source.column.event.id", "aggregate_id");
      raw.put("source.column.sequence", "Aggregate_Version");
      raw.put("source.column.payload", "pay load");

      assertThatThrownBy(() -> parse(raw))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(
              "source.column.sequence and source.column.aggregate.version both name column"
                  + " aggregate_version; source.column.event.id and source.column.aggregate.id"
                  + " both name column aggregate_id: each role needs a column of its own")
          .hasMessageContaining("source.column.payload: 'pay load' is not a plain SQL identifier");
    }
    // A placed column may repeat a role's column, as Debezium's type:header:eventType does.
    Map<String, String> placed = minimalPolling();
    placed.put("source.column.additional.placement", "event_type:header:eventType");
    assertThat(parse(placed).source().columns().placements()).hasSize(1);
  }

  @Test
  void refusesAPlacedHeaderNamedAsOneOfTheRelaysOwn() {
    Map<String, String> raw = minimalCdc();
    raw.put("source.column.additional.placement", "type:header:event_type");

    assertThatThrownBy(() -> parse(raw))
        .hasMessageContaining(
            "source.column.additional.placement: header event_type is also one of router.headers");
  }

  @Test
  void theShippedDebeziumExampleIsAValidConfiguration() throws Exception {
    java.nio.file.Path root = java.nio.file.Path.of("").toAbsolutePath();
    if (!java.nio.file.Files.exists(root.resolve("config"))) {
      root = root.getParent();
    }
    RelayConfig config =
        new ConfigLoader(Map.of("OUTBOX_RELAY_PASSWORD", "pw"))
            .load(root.resolve("config/examples/debezium-outbox.properties"), null);

    assertThat(config.source().columns().requiredColumns())
        .containsExactly("id", "aggregatetype", "aggregateid", "type", "payload");
    assertThat(config.routerHeaders()).containsExactly("id");
    assertThat(config.topicTemplate()).hasToString("outbox.event.${aggregate_type}");
    assertThat(config.warnings()).isEmpty();
  }
}
