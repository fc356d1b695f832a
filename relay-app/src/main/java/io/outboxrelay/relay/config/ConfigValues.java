package io.outboxrelay.relay.config;

import java.util.Map;
import java.util.Set;

/**
 * The parsed value of every declared key, for one mode: what the cross-field checks and the
 * per-area factories ({@code SourceConfig.from} and the like) read. A key that is not set holds its
 * default, a key without a default holds {@code null}. Immutable and thread-safe.
 */
final class ConfigValues {

  private final RelayMode mode;
  private final Map<ConfigKey<?>, Object> values;
  private final Set<ConfigKey<?>> given;

  ConfigValues(RelayMode mode, Map<ConfigKey<?>, Object> values) {
    this(mode, values, Set.of());
  }

  /**
   * @param given the keys the file sets (the others hold their defaults)
   */
  ConfigValues(RelayMode mode, Map<ConfigKey<?>, Object> values, Set<ConfigKey<?>> given) {
    this.mode = mode;
    this.values = Map.copyOf(values);
    this.given = Set.copyOf(given);
  }

  /** Whether the file sets the key, rather than leaving it at its default. */
  boolean isGiven(ConfigKey<?> key) {
    return given.contains(key);
  }

  /** The mode in effect (the file's, or the {@code --mode} option's). */
  RelayMode mode() {
    return mode;
  }

  /** The key's value, or {@code null} when it has none. */
  @SuppressWarnings("unchecked") // put in by ConfigLoader from the key's own parser
  <T> T get(ConfigKey<T> key) {
    return key == RelayConfigKeys.MODE ? (T) mode : (T) values.get(key);
  }

  /** The key's value as printable text (secrets hidden), or {@code (not set)}. */
  <T> String printable(ConfigKey<T> key) {
    T value = get(key);
    return value == null ? "(not set)" : key.type().format(value);
  }

  /** {@code key=value}, for messages: {@code polling.batch.size=500}. */
  String setting(ConfigKey<?> key) {
    return key.name() + "=" + printable(key);
  }
}
