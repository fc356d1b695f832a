package io.outboxrelay.relay.config;

import io.outboxrelay.router.TopicTemplate;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads a properties file into a {@link RelayConfig}, reporting every problem at once.
 *
 * <p>Values may refer to the environment or to a file: {@code ${env:NAME}} and {@code
 * ${file:/path}} (trailing newline removed), so secrets need not live in the properties file.
 * Unknown keys are errors, except under the pass-through prefixes {@value
 * RelayConfigKeys#KAFKA_PRODUCER_PREFIX} and {@value RelayConfigKeys#DEBEZIUM_PREFIX}; a Debezium
 * setting Debezium does not define, and a key given twice in the file, are warnings. Stateless and
 * thread-safe.
 */
public final class ConfigLoader {

  private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

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
   * Loads and checks a properties file. A UTF-8 byte order mark at its start is ignored; a key
   * given more than once is a warning (the last value counts, as with {@link
   * java.util.Properties}).
   *
   * @param file the properties file (UTF-8)
   * @param modeOverride the {@code --mode} option, or {@code null}
   * @return the configuration
   * @throws ConfigException listing every problem, or saying the file is not UTF-8 text
   * @throws IOException when the file cannot be read
   */
  public RelayConfig load(Path file, RelayMode modeOverride) throws ConfigException, IOException {
    PropertiesFile.Contents contents = PropertiesFile.read(file);
    return parse(contents.entries(), modeOverride, file.toString(), contents.warnings());
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
    return parse(raw, modeOverride, "the configuration", List.of());
  }

  private RelayConfig parse(
      Map<String, String> raw, RelayMode modeOverride, String origin, List<String> fileWarnings)
      throws ConfigException {
    List<String> problems = new ArrayList<>();
    List<String> notices = new ArrayList<>();
    List<String> warnings = new ArrayList<>(fileWarnings);
    Map<String, String> resolved = new TreeMap<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      String value = resolve(e.getKey(), e.getValue().trim(), problems);
      if (value != null) {
        resolved.put(e.getKey(), value);
      }
    }

    RelayMode fileMode = value(RelayConfigKeys.MODE, resolved, null, problems);
    RelayMode mode =
        modeOverride != null ? modeOverride : fileMode != null ? fileMode : RelayMode.CDC;
    if (modeOverride != null && fileMode != null && fileMode != modeOverride) {
      notices.add(
          "mode="
              + lower(modeOverride)
              + " from --mode overrides mode="
              + lower(fileMode)
              + " in "
              + origin);
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

    String bootstrapServers =
        (String) values.getOrDefault(RelayConfigKeys.KAFKA_BOOTSTRAP_SERVERS, "");
    problems.addAll(BootstrapServers.problems(bootstrapServers));
    ProducerSettings producer = new ProducerSettings(mode, bootstrapServers, producerOverrides);
    problems.addAll(producer.problems());
    if (mode == RelayMode.CDC) {
      Map<String, String> unmanaged = new TreeMap<>(debeziumOverrides);
      debeziumOverrides.forEach(
          (k, v) -> {
            String instead = DebeziumKeys.managedBy(k);
            if (instead != null) {
              problems.add(
                  RelayConfigKeys.DEBEZIUM_PREFIX + k + " is managed by the relay: " + instead);
              unmanaged.remove(k);
            }
          });
      SourceFlavor flavor = (SourceFlavor) values.get(RelayConfigKeys.SOURCE_FLAVOR);
      if (!unmanaged.isEmpty() && flavor != null && flavor.supportsCdc()) {
        warnings.addAll(DebeziumKeys.warnings(flavor, unmanaged));
      }
    }
    crossChecks(mode, values, producer, problems);

    if (!problems.isEmpty()) {
      throw new ConfigException(problems, warnings);
    }
    return build(mode, values, producer, debeziumOverrides, resolved, notices, warnings);
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
        String problem = null;
        replacement = "";
        try {
          replacement =
              Files.readString(Path.of(m.group(2)), StandardCharsets.UTF_8).stripTrailing();
        } catch (NoSuchFileException e) {
          problem = "which does not exist";
        } catch (AccessDeniedException e) {
          problem = "which the relay's user may not read";
        } catch (CharacterCodingException e) {
          problem = "which is not UTF-8 text";
        } catch (IOException | InvalidPathException e) {
          problem = "which cannot be read: " + e;
        }
        if (problem != null) {
          problems.add(key + " refers to ${file:" + m.group(2) + "}, " + problem);
          ok = false;
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
      pollingChecks(values, problems);
    }
    SourceFlavor flavor = (SourceFlavor) values.get(RelayConfigKeys.SOURCE_FLAVOR);
    if (mode == RelayMode.CDC && flavor != null && !flavor.supportsCdc()) {
      problems.add(
          "source.flavor="
              + lower(flavor)
              + " supports only polling mode: set mode=polling"
              + " (CDC mode reads a MySQL/MariaDB binlog)");
    }
    Duration retention = (Duration) values.get(RelayConfigKeys.CDC_RETENTION);
    if (mode == RelayMode.CDC
        && flavor == SourceFlavor.MYSQL
        && retention != null
        && !retention.isZero()) {
      problems.add(
          "cdc.retention needs MariaDB (a consistent snapshot with its binlog position); MySQL has"
              + " none: set cdc.retention=0ms");
    }
    Duration initial = (Duration) values.get(RelayConfigKeys.CDC_RETRY_BACKOFF_INITIAL);
    Duration max = (Duration) values.get(RelayConfigKeys.CDC_RETRY_BACKOFF_MAX);
    if (mode == RelayMode.CDC && initial != null && max != null && initial.compareTo(max) > 0) {
      problems.add(
          "cdc.retry.backoff.initial must not exceed cdc.retry.backoff.max: lower the first or"
              + " raise the second");
    }
    Duration lease = (Duration) values.get(RelayConfigKeys.CDC_LEADER_LEASE);
    Duration renew = (Duration) values.get(RelayConfigKeys.CDC_LEADER_RENEW_INTERVAL);
    if (mode == RelayMode.CDC
        && lease != null
        && renew != null
        && renew.multipliedBy(3).compareTo(lease) > 0) {
      problems.add(
          "cdc.leader.renew.interval="
              + ValueType.DURATION_TYPE.format(renew)
              + " is more than a third of cdc.leader.lease="
              + ValueType.DURATION_TYPE.format(lease)
              + ": a single late renewal would stop the leader; lower the interval or raise the"
              + " lease");
    }
  }

  private static void pollingChecks(Map<ConfigKey<?>, Object> values, List<String> problems) {
    // No check relates polling.lease to the producer's timeouts: the lease is renewed while a
    // batch waits for Kafka, so it need not cover the longest publish (see LeaseKeeper).
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

  private static RelayConfig build(
      RelayMode mode,
      Map<ConfigKey<?>, Object> values,
      ProducerSettings producer,
      Map<String, String> debeziumOverrides,
      Map<String, String> resolved,
      List<String> notices,
      List<String> warnings) {
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
              get(values, RelayConfigKeys.CDC_LEADER_TABLE),
              get(values, RelayConfigKeys.CDC_LEADER_LEASE),
              get(values, RelayConfigKeys.CDC_LEADER_RENEW_INTERVAL),
              debeziumOverrides,
              get(values, RelayConfigKeys.CDC_RETENTION),
              get(values, RelayConfigKeys.CDC_RETENTION_BATCH_SIZE),
              get(values, RelayConfigKeys.CDC_RETENTION_INTERVAL));
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
        String value =
            producerKey
                ? producer.effective(key.substring(RelayConfigKeys.KAFKA_PRODUCER_PREFIX.length()))
                : resolved.get(key).trim();
        effective.put(key, SecretKeys.isSecret(key) ? "[hidden]" : value);
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
        new VersionCheckConfig(
            get(values, RelayConfigKeys.VERSION_CHECK),
            get(values, RelayConfigKeys.VERSION_CHECK_AGGREGATES)),
        producer,
        cdc,
        polling,
        values.get(RelayConfigKeys.HTTP_PORT) == null
            ? null
            : new HttpConfig(
                get(values, RelayConfigKeys.HTTP_HOST), get(values, RelayConfigKeys.HTTP_PORT)),
        effective,
        notices,
        warnings);
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
    String best =
        Spelling.nearest(
            key, RelayConfigKeys.ALL.stream().map(ConfigKey::name).collect(Collectors.toList()), 3);
    String hint =
        best != null
            ? "did you mean " + best + "?"
            : "see config/relay.properties.example for the keys (Kafka producer settings go"
                + " under kafka.producer., Debezium settings under debezium.)";
    return "unknown key " + key + ": " + hint;
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }
}
