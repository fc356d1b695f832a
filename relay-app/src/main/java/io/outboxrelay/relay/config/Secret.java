package io.outboxrelay.relay.config;

import java.util.Objects;

/**
 * A secret configuration value. {@link #toString()} prints {@code [hidden]}, so a secret cannot
 * leak into a log line by accident; {@link #reveal()} is the only way to read it. Immutable.
 *
 * @param value the secret text
 */
public record Secret(String value) {

  /**
   * Checks the value.
   *
   * @throws NullPointerException if {@code value} is null
   */
  public Secret {
    Objects.requireNonNull(value, "value");
  }

  /**
   * The secret itself; pass it only to the component that needs it.
   *
   * @return the secret text
   */
  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "[hidden]";
  }
}
