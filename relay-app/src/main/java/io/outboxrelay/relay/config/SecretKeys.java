package io.outboxrelay.relay.config;

import java.util.regex.Pattern;

/** Decides which pass-through keys hold secrets, so their values are never printed. */
public final class SecretKeys {

  private static final Pattern SECRET =
      Pattern.compile(
          "(?i).*(password|secret|jaas\\.config|token|credential|keystore\\.key"
              + "|basic\\.auth\\.user\\.info).*");

  private SecretKeys() {}

  /**
   * Whether a key's value must never be printed.
   *
   * @param key the full key, e.g. {@code kafka.producer.sasl.jaas.config}
   * @return true for secrets
   */
  public static boolean isSecret(String key) {
    return SECRET.matcher(key).matches();
  }
}
