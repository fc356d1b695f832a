package io.outboxrelay.testsupport.outbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Relay settings for one test: a database, a Kafka broker, unique names and topics. Plain keys and
 * values: a test that runs the relay in-process parses them with the relay's own loader ({@link
 * #parsedBy}), one that runs the distribution writes them to a file ({@link #writeTo}).
 */
public final class RelaySettings {

  private final Map<String, String> values = new TreeMap<>();

  private RelaySettings() {}

  /**
   * CDC settings for a test database.
   *
   * @param db the outbox database
   * @param bootstrapServers the Kafka broker
   * @param name a name unique to the test (relay.name and topic prefix)
   * @return the settings, changeable with {@link #with}
   */
  public static RelaySettings cdc(SourceDatabase db, String bootstrapServers, String name) {
    RelaySettings s = new RelaySettings();
    s.values.put("mode", "cdc");
    s.values.put("relay.name", name);
    s.values.put("relay.stats.interval", "5s");
    s.values.put("relay.shutdown.timeout", "20s");
    s.values.put("source.flavor", db.flavor().configName());
    s.values.put("source.host", db.host());
    s.values.put("source.port", String.valueOf(db.port()));
    s.values.put("source.database", db.name());
    s.values.put("source.user", db.relayUser());
    s.values.put("source.password", db.password());
    s.values.put("kafka.bootstrap.servers", bootstrapServers);
    s.values.put("router.topic.template", topicPrefix(name) + "${aggregate_type}");
    s.values.put(
        "cdc.server.id", String.valueOf(ThreadLocalRandom.current().nextInt(1000, 1_000_000)));
    return s;
  }

  /**
   * Polling settings for a test database: short intervals, the default lease.
   *
   * @param db the outbox database (its relay user needs the polling grants)
   * @param bootstrapServers the Kafka broker
   * @param name a name unique to the test (relay.name and topic prefix)
   * @return the settings, changeable with {@link #with}
   */
  public static RelaySettings polling(SourceDatabase db, String bootstrapServers, String name) {
    RelaySettings s = cdc(db, bootstrapServers, name);
    s.values.remove("cdc.server.id");
    s.values.put("mode", "polling");
    s.values.put("polling.interval", "50ms");
    return s;
  }

  /** The topic prefix the settings route to: topics are {@code prefix + aggregate_type}. */
  public static String topicPrefix(String name) {
    return "t-" + name + ".";
  }

  /** Sets a key. */
  public RelaySettings with(String key, String value) {
    values.put(key, value);
    return this;
  }

  /** Removes a key. */
  public RelaySettings without(String key) {
    values.remove(key);
    return this;
  }

  /** The settings, sorted by key, unmodifiable. */
  public Map<String, String> values() {
    return Collections.unmodifiableMap(values);
  }

  /**
   * The settings parsed by a configuration loader.
   *
   * @param parser e.g. the relay's loader
   * @param <T> the parsed configuration
   * @return what the parser returns
   */
  public <T> T parsedBy(Function<Map<String, String>, T> parser) {
    return parser.apply(values());
  }

  /** Writes the settings as a properties file. */
  public Path writeTo(Path file) {
    StringBuilder text = new StringBuilder();
    values.forEach(
        (k, v) -> text.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
