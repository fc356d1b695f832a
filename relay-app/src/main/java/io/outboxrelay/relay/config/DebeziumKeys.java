package io.outboxrelay.relay.config;

import io.debezium.config.Field;
import io.debezium.embedded.EmbeddedEngineConfig;
import io.debezium.embedded.async.AsyncEngineConfig;
import io.debezium.heartbeat.DatabaseHeartbeatImpl;
import io.debezium.heartbeat.Heartbeat;
import io.debezium.pipeline.notification.channels.SinkNotificationChannel;
import io.debezium.pipeline.signal.channels.FileSignalChannel;
import io.debezium.pipeline.signal.channels.KafkaSignalChannel;
import io.debezium.relational.history.SchemaHistory;
import io.debezium.schema.AbstractRegexTopicNamingStrategy;
import io.debezium.schema.AbstractTopicNamingStrategy;
import io.debezium.storage.jdbc.JdbcCommonConfig;
import io.debezium.storage.jdbc.history.JdbcSchemaHistoryConfig;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStoreConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The settings Debezium defines for the relay's engine and connector, to tell a typo in a {@code
 * debezium.*} key from a setting. Debezium ignores a key it does not know, so {@code
 * debezium.snapshot.mdoe=initial} would silently keep the default snapshot mode.
 *
 * <p>The names are read from the Debezium classes on the classpath, so they follow the Debezium
 * version the relay ships with: the connector's configuration class ({@code ALL_FIELDS} and every
 * public {@link Field} of it and its superclasses: common, relational, binlog), the embedded
 * engine's, heartbeats, schema history, topic naming, signal and notification channels, and the
 * JDBC offset and schema history stores under their prefixes. Besides, Debezium reads settings
 * under some prefixes it does not declare: {@code database.*} and {@code driver.*} go to the JDBC
 * driver, {@code transforms.*}, {@code predicates.*} and converter settings to the engine, and the
 * names listed in {@code converters} and {@code post.processors} prefix their own settings.
 * Thread-safe.
 */
final class DebeziumKeys {

  /** Prefixes of settings Debezium reads without declaring each one. */
  private static final List<String> OPEN_PREFIXES =
      List.of(
          "transforms.",
          "predicates.",
          "converter.",
          "key.converter",
          "value.converter",
          "header.converter",
          "snapshot.select.statement.overrides.",
          "signal.consumer.",
          "internal.schema.history.internal.");

  /** Prefixes whose settings Debezium does not define go to the JDBC driver. */
  private static final List<String> DRIVER_PREFIXES = List.of("database.", "driver.");

  /** Settings whose comma-separated names prefix further settings ({@code converters=bool}). */
  private static final List<String> NAMING_SETTINGS = List.of("converters", "post.processors");

  /** The engine reads it though no Debezium class declares it. */
  private static final Set<String> UNDECLARED = Set.of("tasks.max");

  private static final Map<SourceFlavor, Known> KNOWN = new ConcurrentHashMap<>();

  private DebeziumKeys() {}

  /**
   * A warning for each setting Debezium does not define, with the closest defined name when one is
   * near.
   *
   * @param flavor the source database, which picks the connector
   * @param settings the {@code debezium.*} entries without the prefix
   * @return one line per unknown setting, naming the full key; empty when all are known
   */
  static List<String> warnings(SourceFlavor flavor, Map<String, String> settings) {
    Known known = KNOWN.computeIfAbsent(flavor, f -> Known.load(f.debeziumConnector()));
    List<String> prefixes = new ArrayList<>(OPEN_PREFIXES);
    for (String naming : NAMING_SETTINGS) {
      String names = settings.get(naming);
      if (names != null) {
        for (String name : names.split(",")) {
          if (!name.isBlank()) {
            prefixes.add(name.trim() + ".");
            prefixes.add(naming + "." + name.trim() + ".");
          }
        }
      }
    }
    List<String> warnings = new ArrayList<>();
    for (String key : new TreeSet<>(settings.keySet())) {
      if (known.defines(key) || prefixes.stream().anyMatch(key::startsWith)) {
        continue;
      }
      String full = RelayConfigKeys.DEBEZIUM_PREFIX + key;
      String driverPrefix =
          DRIVER_PREFIXES.stream().filter(key::startsWith).findFirst().orElse(null);
      if (driverPrefix != null) {
        // Most likely a JDBC driver property; worth a word only when it is one typo away from a
        // Debezium setting.
        String near = Spelling.nearest(key, known.names, 2);
        if (near != null) {
          warnings.add(
              full
                  + " is not a Debezium setting, so Debezium passes it to the JDBC driver as "
                  + key.substring(driverPrefix.length())
                  + ": did you mean "
                  + RelayConfigKeys.DEBEZIUM_PREFIX
                  + near
                  + "?");
        }
        continue;
      }
      String near = Spelling.nearest(key, known.names, 3);
      warnings.add(
          full
              + " is not a setting of Debezium's "
              + known.connector
              + " connector or engine, and Debezium ignores it: "
              + (near != null
                  ? "did you mean " + RelayConfigKeys.DEBEZIUM_PREFIX + near + "?"
                  : "check the spelling against the Debezium documentation"));
    }
    return warnings;
  }

  /**
   * A Debezium connector: its name for messages, its settings, and the class declaring them (whose
   * constants name some settings its set leaves out).
   *
   * @param name e.g. {@code MariaDB}
   * @param fields the connector's {@code ALL_FIELDS}
   * @param config its configuration class
   */
  record Connector(String name, Field.Set fields, Class<?> config) {}

  /** The names Debezium defines for one connector, and its name patterns. */
  private static final class Known {

    private final String connector;
    private final Set<String> names = new TreeSet<>();
    private final List<Pattern> patterns = new ArrayList<>();

    private Known(String connector) {
      this.connector = connector;
    }

    static Known load(Connector connector) {
      Known k = new Known(connector.name());
      k.addAll(connector.fields(), "");
      k.addConstants(connector.config(), "");
      for (Class<?> c :
          List.of(
              EmbeddedEngineConfig.class,
              AsyncEngineConfig.class,
              Heartbeat.class,
              DatabaseHeartbeatImpl.class,
              SchemaHistory.class,
              AbstractTopicNamingStrategy.class,
              AbstractRegexTopicNamingStrategy.class,
              SinkNotificationChannel.class,
              FileSignalChannel.class,
              KafkaSignalChannel.class)) {
        k.addConstants(c, "");
      }
      // The JDBC stores declare their settings relative to where they are configured.
      for (Class<?> c :
          List.of(
              JdbcCommonConfig.class,
              JdbcOffsetBackingStoreConfig.class,
              JdbcSchemaHistoryConfig.class)) {
        k.addConstants(c, "offset.storage.");
        k.addConstants(c, SchemaHistory.CONFIGURATION_FIELD_PREFIX_STRING);
      }
      k.names.addAll(UNDECLARED);
      return k;
    }

    boolean defines(String key) {
      return names.contains(key) || patterns.stream().anyMatch(p -> p.matcher(key).matches());
    }

    private void addConstants(Class<?> type, String prefix) {
      for (java.lang.reflect.Field f : type.getFields()) {
        if (Field.class.isAssignableFrom(f.getType())
            && java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
          try {
            add((Field) f.get(null), prefix);
          } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + type.getName() + "." + f.getName(), e);
          }
        }
      }
    }

    private void addAll(Field.Set fields, String prefix) {
      Arrays.stream(fields.asArray()).forEach(f -> add(f, prefix));
    }

    private void add(Field field, String prefix) {
      if (field == null) {
        return;
      }
      for (String name : aliases(field)) {
        if (name.contains("(")) {
          // A family of settings such as column.mask.with.(d+).chars: Debezium's own pattern,
          // with the digits class written without its backslash.
          patterns.add(Pattern.compile(prefix + name.replace("(d+)", "(\\d+)")));
        } else {
          names.add(prefix + name);
        }
      }
    }

    private static List<String> aliases(Field field) {
      List<String> all = new ArrayList<>();
      all.add(field.name());
      all.addAll(field.deprecatedAliases());
      return all;
    }
  }
}
