package io.outboxrelay.relay.config;

import io.outboxrelay.router.TopicTemplate;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a properties file into a {@link RelayConfig}, reporting every problem at once.
 *
 * <p>Values may refer to the environment or to a file: {@code ${env:NAME}} and {@code
 * ${file:/path}} (trailing newline removed), so secrets need not live in the properties file.
 * Unknown keys are errors, except under the pass-through prefixes {@value
 * RelayConfigKeys#KAFKA_PRODUCER_PREFIX} and {@value RelayConfigKeys#DEBEZIUM_PREFIX}. Stateless
 * and thread-safe.
 */
public final class ConfigLoader {

  private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

  /** Engine settings the relay owns; a {@code debezium.*} override of them is refused. */
  private static final Map<String, String> DEBEZIUM_OWNED = debeziumOwned();

  private final Map<String, String> environment;

  /**
   * A loader that resolves {@code ${env:NAME}} against the given environment.
   *
   * @param environment the environment, usually {@link System#getenv()}
   */
  public ConfigLoader(Map<String, String> environment) {
    this.environment = Map.copyOf(environment);
  }

  /**
   * Loads and checks a properties file.
   *
   * @param file the properties file (UTF-8)
   * @param modeOverride the {@code --mode} option, or {@code null}
   * @return the configuration
   * @throws ConfigException listing every problem
   * @throws IOException when the file cannot be read
   */
  public RelayConfig load(Path file, RelayMode modeOverride) throws ConfigException, IOException {
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      props.load(reader);
    }
    Map<String, String> raw = new HashMap<>();
    props.stringPropertyNames().forEach(k -> raw.put(k.trim(), props.getProperty(k)));
    return parse(raw, modeOverride);
  }

  /**
   * Checks raw key/value pairs.
   *
   * @param raw the entries as read from the file
   * @param modeOverride the {@code --mode} option, or {@code null}
   * @return the configuration
   * @throws ConfigException listing every problem
   */
  public RelayConfig parse(Map<String, String> raw, RelayMode modeOverride) throws ConfigException {
    List<String> problems = new ArrayList<>();
    Map<String, String> resolved = new TreeMap<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      String value = resolve(e.getKey(), e.getValue().trim(), problems);
      if (value != null) {
        resolved.put(e.getKey(), value);
      }
    }

    RelayMode mode = modeOverride;
    if (mode == null) {
      mode = value(RelayConfigKeys.MODE, resolved, RelayMode.CDC, problems);
    }
    Map<ConfigKey<?>, Object> values = new HashMap<>();
    for (ConfigKey<?> key : RelayConfigKeys.ALL) {
      Object v = read(key, resolved, mode, problems);
      if (v != null) {
        values.put(key, v);
      }
    }
    values.put(RelayConfigKeys.MODE, mode);

    Map<String, String> producerOverrides = new TreeMap<>();
    Map<String, String> debeziumOverrides = new TreeMap<>();
    for (String key : resolved.keySet()) {
      if (key.startsWith(RelayConfigKeys.KAFKA_PRODUCER_PREFIX)) {
        producerOverrides.put(
            key.substring(RelayConfigKeys.KAFKA_PRODUCER_PREFIX.length()), resolved.get(key));
      } else if (key.startsWith(RelayConfigKeys.DEBEZIUM_PREFIX)) {
        debeziumOverrides.put(
            key.substring(RelayConfigKeys.DEBEZIUM_PREFIX.length()), resolved.get(key));
      } else if (RelayConfigKeys.byName(key) == null) {
        problems.add(unknownKey(key));
      }
    }

    ProducerSettings producer =
        new ProducerSettings(
            mode,
            (String) values.getOrDefault(RelayConfigKeys.KAFKA_BOOTSTRAP_SERVERS, ""),
            producerOverrides);
    problems.addAll(producer.problems());
    if (mode == RelayMode.CDC) {
      debeziumOverrides.forEach(
          (k, v) -> {
            String instead = DEBEZIUM_OWNED.get(k);
            if (instead != null) {
              problems.add(
                  RelayConfigKeys.DEBEZIUM_PREFIX + k + " is managed by the relay: " + instead);
            }
          });
    }
    crossChecks(mode, values, producer, problems);

    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return build(mode, values, producer, debeziumOverrides, resolved);
  }

  private String resolve(String key, String value, List<String> problems) {
    Matcher m = REFERENCE.matcher(value);
    StringBuilder out = new StringBuilder();
    boolean ok = true;
    while (m.find()) {
      String replacement;
      if (m.group(1).equals("env")) {
        replacement = environment.get(m.group(2));
        if (replacement == null) {
          problems.add(
              key
                  + " refers to ${env:"
                  + m.group(2)
                  + "}, which is not set: export it or change"
                  + " the value");
          ok = false;
          replacement = "";
        }
      } else {
        Path path = Path.of(m.group(2));
        try {
          replacement = Files.readString(path, StandardCharsets.UTF_8).stripTrailing();
        } catch (IOException e) {
          problems.add(key + " refers to ${file:" + path + "}, which cannot be read: " + e);
          ok = false;
          replacement = "";
        }
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return ok ? out.toString() : null;
  }

  private static <T> T value(
      ConfigKey<T> key, Map<String, String> resolved, T fallback, List<String> problems) {
    String text = resolved.get(key.name());
    if (text == null) {
      return fallback;
    }
    try {
      return key.parse(text);
    } catch (IllegalArgumentException e) {
      problems.add(key.name() + ": " + e.getMessage());
      return fallback;
    }
  }

  private static Object read(
      ConfigKey<?> key, Map<String, String> resolved, RelayMode mode, List<String> problems) {
    String text = resolved.get(key.name());
    if (text == null) {
      if (key.isRequiredIn(mode)) {
        problems.add(
            key.name()
                + " is required"
                + (key.requiredIn().size() == 1 ? " in " + lower(mode) + " mode" : "")
                + ": "
                + key.doc().split("(?<=\\.) ")[0]);
      }
      return key.defaultValue();
    }
    if (key == RelayConfigKeys.MODE) {
      return null; // already handled, and --mode may override it
    }
    try {
      return key.parse(text);
    } catch (IllegalArgumentException e) {
      problems.add(key.name() + ": " + e.getMessage());
      return key.defaultValue();
    }
  }

  private static void crossChecks(
      RelayMode mode,
      Map<ConfigKey<?>, Object> values,
      ProducerSettings producer,
      List<String> problems) {
    if (mode == RelayMode.POLLING) {
      pollingChecks(values, producer, problems);
    }
    SourceFlavor flavor = (SourceFlavor) values.get(RelayConfigKeys.SOURCE_FLAVOR);
    if (mode == RelayMode.CDC && flavor != null && !flavor.supportsCdc()) {
      problems.add(
          "source.flavor="
              + lower(flavor)
              + " supports only polling mode: set mode=polling"
              + " (CDC mode reads a MySQL/MariaDB binlog)");
    }
    Duration initial = (Duration) values.get(RelayConfigKeys.CDC_RETRY_BACKOFF_INITIAL);
    Duration max = (Duration) values.get(RelayConfigKeys.CDC_RETRY_BACKOFF_MAX);
    if (mode == RelayMode.CDC && initial != null && max != null && initial.compareTo(max) > 0) {
      problems.add(
          "cdc.retry.backoff.initial must not exceed cdc.retry.backoff.max: lower the first or"
              + " raise the second");
    }
  }

  private static void pollingChecks(
      Map<ConfigKey<?>, Object> values, ProducerSettings producer, List<String> problems) {
    Duration lease = (Duration) values.get(RelayConfigKeys.POLLING_LEASE);
    long block = parseLong(producer.effective("max.block.ms"));
    long delivery = parseLong(producer.effective("delivery.timeout.ms"));
    if (lease != null && block >= 0 && delivery >= 0) {
      long worstCase = block + delivery + 5_000;
      if (lease.toMillis() < worstCase) {
        problems.add(
            "polling.lease="
                + ValueType.DURATION_TYPE.format(lease)
                + " is shorter than the"
                + " worst-case time to publish a batch (kafka.producer.max.block.ms "
                + block
                + " + kafka.producer.delivery.timeout.ms "
                + delivery
                + " + 5s = "
                + ValueType.DURATION_TYPE.format(Duration.ofMillis(worstCase))
                + "): another worker"
                + " would take over batches still being published; raise polling.lease or lower"
                + " the producer timeouts");
      }
    }
    Integer window = (Integer) values.get(RelayConfigKeys.POLLING_CLAIM_WINDOW);
    Integer batch = (Integer) values.get(RelayConfigKeys.POLLING_BATCH_SIZE);
    if (window != null && batch != null && window < batch) {
      problems.add(
          "polling.claim.window="
              + window
              + " is smaller than polling.batch.size="
              + batch
              + ": a claim could never fill its batch; raise the window");
    }
    Duration initial = (Duration) values.get(RelayConfigKeys.POLLING_BACKOFF_INITIAL);
    Duration max = (Duration) values.get(RelayConfigKeys.POLLING_BACKOFF_MAX);
    if (initial != null && max != null && initial.compareTo(max) > 0) {
      problems.add(
          "polling.retry.backoff.initial must not exceed polling.retry.backoff.max: lower the"
              + " first or raise the second");
    }
  }

  private static long parseLong(String v) {
    try {
      return v == null ? -1 : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return -1; // reported by the producer validation
    }
  }

  private static RelayConfig build(
      RelayMode mode,
      Map<ConfigKey<?>, Object> values,
      ProducerSettings producer,
      Map<String, String> debeziumOverrides,
      Map<String, String> resolved) {
    SourceFlavor flavor = get(values, RelayConfigKeys.SOURCE_FLAVOR);
    Integer port = get(values, RelayConfigKeys.SOURCE_PORT);
    SourceConfig source =
        new SourceConfig(
            flavor,
            get(values, RelayConfigKeys.SOURCE_HOST),
            port != null ? port : flavor.defaultPort(),
            get(values, RelayConfigKeys.SOURCE_DATABASE),
            get(values, RelayConfigKeys.SOURCE_USER),
            new Secret(get(values, RelayConfigKeys.SOURCE_PASSWORD)),
            get(values, RelayConfigKeys.SOURCE_TABLE),
            get(values, RelayConfigKeys.SOURCE_CONNECT_TIMEOUT));
    CdcConfig cdc = null;
    if (mode == RelayMode.CDC) {
      cdc =
          new CdcConfig(
              get(values, RelayConfigKeys.CDC_SERVER_ID),
              get(values, RelayConfigKeys.CDC_OFFSETS_TABLE),
              get(values, RelayConfigKeys.CDC_SCHEMA_HISTORY_TABLE),
              get(values, RelayConfigKeys.CDC_BATCH_SIZE),
              get(values, RelayConfigKeys.CDC_COMMIT_INTERVAL),
              get(values, RelayConfigKeys.CDC_HEARTBEAT_INTERVAL),
              get(values, RelayConfigKeys.CDC_POISON_ACTION),
              get(values, RelayConfigKeys.CDC_RETRY_BACKOFF_INITIAL),
              get(values, RelayConfigKeys.CDC_RETRY_BACKOFF_MAX),
              get(values, RelayConfigKeys.CDC_STARTUP_TIMEOUT),
              get(values, RelayConfigKeys.CDC_REQUIRE_DURABLE_BINLOG),
              debeziumOverrides);
    }

    PollingConfig polling = null;
    if (mode == RelayMode.POLLING) {
      polling =
          new PollingConfig(
              get(values, RelayConfigKeys.POLLING_WORKERS),
              get(values, RelayConfigKeys.POLLING_BATCH_SIZE),
              get(values, RelayConfigKeys.POLLING_INTERVAL),
              get(values, RelayConfigKeys.POLLING_LEASE),
              get(values, RelayConfigKeys.POLLING_ORDERING),
              get(values, RelayConfigKeys.POLLING_DEAD_BLOCKS_AGGREGATE),
              get(values, RelayConfigKeys.POLLING_CLAIM_WINDOW),
              get(values, RelayConfigKeys.POLLING_MAX_ATTEMPTS),
              get(values, RelayConfigKeys.POLLING_BACKOFF_INITIAL),
              get(values, RelayConfigKeys.POLLING_BACKOFF_MULTIPLIER),
              get(values, RelayConfigKeys.POLLING_BACKOFF_MAX),
              get(values, RelayConfigKeys.POLLING_RETENTION),
              get(values, RelayConfigKeys.POLLING_RETENTION_BATCH_SIZE),
              get(values, RelayConfigKeys.POLLING_RETENTION_INTERVAL));
    }

    TreeMap<String, String> effective = new TreeMap<>();
    for (ConfigKey<?> key : RelayConfigKeys.ALL) {
      if (!key.isUsedIn(mode)) {
        continue;
      }
      Object v = values.get(key);
      effective.put(key.name(), v == null ? "(not set)" : format(key, v));
    }
    effective.put(RelayConfigKeys.SOURCE_PORT.name(), String.valueOf(source.port()));
    for (String key : resolved.keySet()) {
      boolean producerKey = key.startsWith(RelayConfigKeys.KAFKA_PRODUCER_PREFIX);
      boolean debeziumKey = key.startsWith(RelayConfigKeys.DEBEZIUM_PREFIX);
      if (producerKey || (debeziumKey && mode == RelayMode.CDC)) {
        effective.put(key, SecretKeys.isSecret(key) ? "[hidden]" : resolved.get(key).trim());
      }
    }
    ProducerSettings.defaults(mode)
        .forEach((k, v) -> effective.putIfAbsent(RelayConfigKeys.KAFKA_PRODUCER_PREFIX + k, v));

    return new RelayConfig(
        mode,
        get(values, RelayConfigKeys.RELAY_NAME),
        get(values, RelayConfigKeys.STATS_INTERVAL),
        get(values, RelayConfigKeys.SHUTDOWN_TIMEOUT),
        source,
        TopicTemplate.parse(get(values, RelayConfigKeys.TOPIC_TEMPLATE)),
        producer,
        cdc,
        polling,
        effective);
  }

  @SuppressWarnings("unchecked")
  private static <T> T get(Map<ConfigKey<?>, Object> values, ConfigKey<T> key) {
    return (T) values.get(key);
  }

  @SuppressWarnings("unchecked")
  private static <T> String format(ConfigKey<T> key, Object value) {
    return key.type().format((T) value);
  }

  private static String unknownKey(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (ConfigKey<?> candidate : RelayConfigKeys.ALL) {
      int d = distance(key, candidate.name());
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate.name();
      }
    }
    String hint =
        bestDistance <= 3
            ? "did you mean " + best + "?"
            : "see config/relay.properties.example for the keys (Kafka producer settings go"
                + " under kafka.producer., Debezium settings under debezium.)";
    return "unknown key " + key + ": " + hint;
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  private static Map<String, String> debeziumOwned() {
    Map<String, String> owned = new HashMap<>();
    String useSource = "set it with the source.* keys";
    for (String k :
        Set.of(
            "database.hostname",
            "database.port",
            "database.user",
            "database.password",
            "database.include.list",
            "table.include.list")) {
      owned.put(k, useSource);
    }
    owned.put("database.server.id", "set cdc.server.id");
    owned.put("name", "set relay.name");
    owned.put("topic.prefix", "set relay.name");
    owned.put("connector.class", "set source.flavor");
    owned.put("max.batch.size", "set cdc.batch.size");
    owned.put("heartbeat.interval.ms", "set cdc.heartbeat.interval");
    String offsets = "positions are always stored in source.database (cdc.offsets.table)";
    for (String k :
        new TreeSet<>(
            Set.of(
                "offset.storage",
                "offset.commit.policy",
                "offset.flush.interval.ms",
                "offset.storage.jdbc.connection.url",
                "offset.storage.jdbc.connection.user",
                "offset.storage.jdbc.connection.password",
                "offset.storage.jdbc.table.name",
                "schema.history.internal",
                "schema.history.internal.jdbc.connection.url",
                "schema.history.internal.jdbc.connection.user",
                "schema.history.internal.jdbc.connection.password",
                "schema.history.internal.jdbc.table.name"))) {
      owned.put(k, offsets);
    }
    return Map.copyOf(owned);
  }
}
