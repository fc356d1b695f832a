package io.outboxrelay.relay.testing;

import io.outboxrelay.relay.config.ConfigException;
import io.outboxrelay.relay.config.ConfigLoader;
import io.outboxrelay.relay.config.RelayConfig;
import java.util.Map;

/** Parses test settings with the relay's own loader: {@code settings.parsedBy(Configs::parse)}. */
public final class Configs {

  private Configs() {}

  /**
   * Parses settings as the relay does at start, without environment overrides.
   *
   * @param values the keys and values
   * @return the configuration
   * @throws IllegalArgumentException listing every problem when they are invalid
   */
  public static RelayConfig parse(Map<String, String> values) {
    try {
      return new ConfigLoader(Map.of()).parse(values, null);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(e.problems().toString(), e);
    }
  }
}
