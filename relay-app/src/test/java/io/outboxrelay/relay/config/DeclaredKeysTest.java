package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The declarations in {@link RelayConfigKeys} are the only wiring: every declared key reaches the
 * configuration the relay runs with, and the configuration code names keys only through their
 * declarations.
 */
class DeclaredKeysTest {

  static Stream<ConfigKey<?>> keys() {
    return RelayConfigKeys.ALL.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keys")
  void everyDeclaredKeyReachesTheBuiltConfiguration(ConfigKey<?> key) throws ConfigException {
    Map<String, String> base =
        key.isUsedIn(RelayMode.CDC)
            ? ConfigLoaderTest.minimalCdc()
            : ConfigLoaderTest.minimalPolling();
    if (key == RelayConfigKeys.HTTP_HOST) {
      base.put(RelayConfigKeys.HTTP_PORT.name(), "8080"); // without a port there is no endpoint
    }
    List<Object> baseline = reached(parse(base));
    List<String> tried = new ArrayList<>();
    for (String candidate : candidates(key)) {
      Map<String, String> raw = new java.util.HashMap<>(base);
      raw.put(key.name(), candidate);
      RelayConfig config;
      try {
        config = parse(raw);
      } catch (ConfigException e) {
        continue; // not a valid value for this key; try the next
      }
      tried.add(candidate);
      if (!reached(config).equals(baseline)) {
        return;
      }
    }
    fail(key.name() + " set to any of " + tried + " changed nothing the relay reads");
  }

  @Test
  void passThroughKeysReachTheProducerAndTheEngine() throws ConfigException {
    Map<String, String> raw = ConfigLoaderTest.minimalCdc();
    raw.put(RelayConfigKeys.KAFKA_PRODUCER_PREFIX + "linger.ms", "7");
    raw.put(RelayConfigKeys.DEBEZIUM_PREFIX + "snapshot.mode", "initial");

    RelayConfig config = parse(raw);

    assertThat(config.producer().asProperties("x")).containsEntry("linger.ms", "7");
    assertThat(config.cdc().debeziumOverrides()).containsEntry("snapshot.mode", "initial");
    assertThat(ConfigReference.exampleProperties())
        .contains(RelayConfigKeys.KAFKA_PRODUCER_PREFIX + "* (Kafka producer settings)")
        .contains(RelayConfigKeys.DEBEZIUM_PREFIX + "* (embedded Debezium engine settings)");
  }

  @Test
  void everyDebeziumSettingTheRelayManagesIsOneDebeziumDefines() {
    Map<String, String> managed = new java.util.TreeMap<>();
    for (DebeziumManaged setting : DebeziumManaged.values()) {
      managed.put(setting.key(), "x");
    }

    assertThat(managed).containsKeys("offset.storage.jdbc.table.name", "database.server.id");
    assertThat(DebeziumKeys.warnings(SourceFlavor.MARIADB, managed)).isEmpty();
    assertThat(DebeziumKeys.warnings(SourceFlavor.MYSQL, managed)).isEmpty();
  }

  @Test
  void theConfigurationCodeNamesKeysOnlyThroughTheirDeclarations() throws IOException {
    Pattern literal = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    List<String> repeated = new ArrayList<>();
    try (Stream<Path> files = Files.list(Path.of("src/main/java/io/outboxrelay/relay/config"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        if (file.getFileName().toString().equals("RelayConfigKeys.java")) {
          continue; // the declarations, whose documentation may mention other keys
        }
        for (String line : Files.readAllLines(file)) {
          String code = line.strip();
          if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) {
            continue;
          }
          Matcher m = literal.matcher(code);
          while (m.find()) {
            for (ConfigKey<?> key : RelayConfigKeys.ALL) {
              if (key.name().contains(".")
                  && Pattern.compile("(?<![\\w.])" + Pattern.quote(key.name()) + "(?!\\w)")
                      .matcher(m.group())
                      .find()) {
                repeated.add(file.getFileName() + ": " + m.group());
              }
            }
          }
        }
      }
    }
    assertThat(repeated).isEmpty();
  }

  /**
   * Messages name the keys an operator should change ("check source.host"): each name in the
   * relay's code must be a declared key (or under a pass-through prefix), so that renaming a key
   * cannot leave a message pointing at a setting that does not exist.
   */
  @Test
  void everyKeyTheRelaysCodeNamesIsDeclared() throws IOException {
    Pattern literal = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    Pattern keyLike =
        Pattern.compile(
            "(?<![\\w.$/-])(?:source|cdc|polling|kafka|http|router|relay)(?:\\.[a-z][a-z0-9_]*)+");
    java.util.Set<String> declared = new java.util.HashSet<>();
    RelayConfigKeys.ALL.forEach(k -> declared.add(k.name()));
    List<String> unknown = new ArrayList<>();
    int named = 0;
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        for (String line : Files.readAllLines(file)) {
          Matcher m = literal.matcher(line);
          while (m.find()) {
            Matcher k = keyLike.matcher(m.group());
            while (k.find()) {
              String name = k.group();
              named++;
              if (!declared.contains(name)
                  && !NOT_KEYS.contains(name)
                  && !(name + ".").startsWith(RelayConfigKeys.KAFKA_PRODUCER_PREFIX)
                  && !(name + ".").equals(RelayConfigKeys.COLUMN_PREFIX)) {
                unknown.add(file.getFileName() + ": " + name);
              }
            }
          }
        }
      }
    }
    assertThat(named).as("key names found in messages").isGreaterThan(20);
    assertThat(unknown).isEmpty();
  }

  /** Names in the relay's code that look like keys and are not: files. */
  private static final java.util.Set<String> NOT_KEYS = java.util.Set.of("relay.properties");

  private static RelayConfig parse(Map<String, String> raw) throws ConfigException {
    return new ConfigLoader(Map.of()).parse(raw, null);
  }

  /** What the relay reads of a configuration: everything but the printable summary. */
  private static List<Object> reached(RelayConfig c) {
    return Arrays.asList(
        c.mode(),
        c.name(),
        c.statsInterval(),
        c.shutdownTimeout(),
        c.resolveTimeout(),
        c.source(),
        c.topicTemplate().toString(),
        c.routerHeaders(),
        c.versionCheck(),
        c.producer().bootstrapServers(),
        c.delivery(),
        c.cdc(),
        c.polling(),
        c.http());
  }

  /** Values to try, of the key's type; the first valid one that differs must show. */
  private static List<String> candidates(ConfigKey<?> key) {
    ValueType<?> type = key.type();
    if (type == ValueType.BOOLEAN) {
      return List.of("true", "false");
    }
    if (type == ValueType.INT || type == ValueType.LONG) {
      return List.of("2", "3", "600", "5001", "70000");
    }
    if (type == ValueType.DOUBLE) {
      return List.of("2", "1.5");
    }
    if (type == ValueType.DURATION_TYPE) {
      return List.of("3s", "1500ms", "30s", "2h", "7d");
    }
    if (type.description().startsWith("one of ")) {
      return List.of(type.description().substring("one of ".length()).split("\\|"));
    }
    return List.of("other_value", "other-host:9092", "x.${event_type}", "id", "ts:header:eventTs");
  }
}
