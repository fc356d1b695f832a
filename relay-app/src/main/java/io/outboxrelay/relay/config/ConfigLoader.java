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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
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

    RelayMode mode = mode(resolved, modeOverride, origin, problems, notices);
    ConfigValues values = values(resolved, mode, problems);
    Map<String, String> producerOverrides = under(RelayConfigKeys.KAFKA_PRODUCER_PREFIX, resolved);
    Map<String, String> debeziumOverrides = under(RelayConfigKeys.DEBEZIUM_PREFIX, resolved);
    for (String key : resolved.keySet()) {
      if (!isPassThrough(key) && RelayConfigKeys.byName(key) == null) {
        problems.add(unknownKey(key));
      }
    }

    ProducerSettings producer = ProducerSettings.from(values, producerOverrides);
    problems.addAll(BootstrapServers.problems(producer.bootstrapServers()));
    problems.addAll(producer.problems());
    if (mode == RelayMode.CDC) {
      checkDebezium(
          values.get(RelayConfigKeys.SOURCE_FLAVOR), debeziumOverrides, problems, warnings);
    }
    for (CrossCheck check : RelayConfigKeys.CROSS_CHECKS) {
      String problem = check.problem(values);
      if (problem != null) {
        problems.add(problem);
      }
    }

    if (!problems.isEmpty()) {
      throw new ConfigException(problems, warnings);
    }
    SourceConfig source = SourceConfig.from(values);
    return new RelayConfig(
        mode,
        values.get(RelayConfigKeys.RELAY_NAME),
        values.get(RelayConfigKeys.STATS_INTERVAL),
        values.get(RelayConfigKeys.SHUTDOWN_TIMEOUT),
        values.get(RelayConfigKeys.RESOLVE_TIMEOUT),
        source,
        TopicTemplate.parse(values.get(RelayConfigKeys.TOPIC_TEMPLATE)),
        RelayConfigKeys.list(values.get(RelayConfigKeys.ROUTER_HEADERS)),
        VersionCheckConfig.from(values),
        producer,
        DeliveryConfig.from(values),
        CdcConfig.from(values, debeziumOverrides),
        PollingConfig.from(values),
        HttpConfig.from(values),
        effective(values, source, producer, resolved),
        notices,
        warnings);
  }

  /** The mode: {@code --mode}, else the file's, else the default; a notice when they differ. */
  private static RelayMode mode(
      Map<String, String> resolved,
      RelayMode modeOverride,
      String origin,
      List<String> problems,
      List<String> notices) {
    ConfigKey<RelayMode> key = RelayConfigKeys.MODE;
    String text = resolved.get(key.name());
    RelayMode fileMode = text == null ? null : parse(key, text, null, problems);
    if (modeOverride != null && fileMode != null && fileMode != modeOverride) {
      notices.add(
          key.name()
              + "="
              + key.type().format(modeOverride)
              + " from --mode overrides "
              + key.name()
              + "="
              + key.type().format(fileMode)
              + " in "
              + origin);
    }
    return modeOverride != null ? modeOverride : fileMode != null ? fileMode : key.defaultValue();
  }

  /** Parses every declared key but the mode, reporting a required key that is missing. */
  private static ConfigValues values(
      Map<String, String> resolved, RelayMode mode, List<String> problems) {
    Map<ConfigKey<?>, Object> values = new HashMap<>();
    java.util.Set<ConfigKey<?>> given = new java.util.HashSet<>();
    for (ConfigKey<?> key : RelayConfigKeys.ALL) {
      if (key != RelayConfigKeys.MODE) {
        Object v = read(key, resolved, mode, problems);
        if (v != null) {
          values.put(key, v);
        }
        if (resolved.containsKey(key.name())) {
          given.add(key);
        }
      }
    }
    return new ConfigValues(mode, values, given);
  }

  private static boolean isPassThrough(String key) {
    return key.startsWith(RelayConfigKeys.KAFKA_PRODUCER_PREFIX)
        || key.startsWith(RelayConfigKeys.DEBEZIUM_PREFIX);
  }

  /** The entries under a pass-through prefix, without it. */
  private static Map<String, String> under(String prefix, Map<String, String> resolved) {
    Map<String, String> entries = new TreeMap<>();
    resolved.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            entries.put(k.substring(prefix.length()), v);
          }
        });
    return entries;
  }

  /** Refuses what the relay sets itself; warns about what Debezium does not define. */
  private static void checkDebezium(
      SourceFlavor flavor,
      Map<String, String> overrides,
      List<String> problems,
      List<String> warnings) {
    Map<String, String> unmanaged = new TreeMap<>(overrides);
    overrides.forEach(
        (k, v) -> {
          String instead = DebeziumManaged.insteadOf(k);
          if (instead != null) {
            problems.add(
                RelayConfigKeys.DEBEZIUM_PREFIX + k + " is managed by the relay: " + instead);
            unmanaged.remove(k);
          }
        });
    if (!unmanaged.isEmpty() && flavor != null && flavor.supportsCdc()) {
      warnings.addAll(DebeziumKeys.warnings(flavor, unmanaged));
    }
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

  private static <T> T parse(ConfigKey<T> key, String text, T fallback, List<String> problems) {
    try {
      return key.parse(text);
    } catch (IllegalArgumentException e) {
      problems.add(key.name() + ": " + e.getMessage());
      return fallback;
    }
  }

  private static <T> T read(
      ConfigKey<T> key, Map<String, String> resolved, RelayMode mode, List<String> problems) {
    String text = resolved.get(key.name());
    if (text != null) {
      return parse(key, text, key.defaultValue(), problems);
    }
    if (key.isRequiredIn(mode, resolved)) {
      problems.add(
          key.name()
              + " is required"
              + (key.requiredIn().size() == 1 ? " in " + lower(mode) + " mode" : "")
              + ": "
              + key.doc().split("(?<=\\.) ")[0]);
    }
    return key.defaultValue();
  }

  /** Every setting in effect in the mode, as printable text with secrets hidden. */
  private static SortedMap<String, String> effective(
      ConfigValues values,
      SourceConfig source,
      ProducerSettings producer,
      Map<String, String> resolved) {
    RelayMode mode = values.mode();
    SortedMap<String, String> effective = new TreeMap<>();
    for (ConfigKey<?> key : RelayConfigKeys.ALL) {
      if (key.isUsedIn(mode)) {
        effective.put(key.name(), values.printable(key));
      }
    }
    effective.put(RelayConfigKeys.SOURCE_PORT.name(), String.valueOf(source.port()));
    if (mode == RelayMode.CDC) {
      effective.put(
          RelayConfigKeys.DELIVERY_TRANSACTIONAL_ID.name(),
          DeliveryConfig.from(values).transactionalId());
    }
    String producerPrefix = RelayConfigKeys.KAFKA_PRODUCER_PREFIX;
    resolved.forEach(
        (key, value) -> {
          String shown = null;
          if (key.startsWith(producerPrefix)) {
            shown = producer.effective(key.substring(producerPrefix.length()));
          } else if (key.startsWith(RelayConfigKeys.DEBEZIUM_PREFIX) && mode == RelayMode.CDC) {
            shown = value.trim();
          }
          if (shown != null) {
            effective.put(key, SecretKeys.isSecret(key) ? "[hidden]" : shown);
          }
        });
    ProducerSettings.defaults(mode).forEach((k, v) -> effective.putIfAbsent(producerPrefix + k, v));
    return effective;
  }

  private static String unknownKey(String key) {
    String best =
        Spelling.nearest(
            key, RelayConfigKeys.ALL.stream().map(ConfigKey::name).collect(Collectors.toList()), 3);
    String hint =
        best != null
            ? "did you mean " + best + "?"
            : "see config/relay.properties.example for the keys (Kafka producer settings go"
                + " under "
                + RelayConfigKeys.KAFKA_PRODUCER_PREFIX
                + ", Debezium settings under "
                + RelayConfigKeys.DEBEZIUM_PREFIX
                + ")";
    return "unknown key " + key + ": " + hint;
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }
}
