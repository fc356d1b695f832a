package io.outboxrelay.relay.config;

/**
 * Where the relay's read-only HTTP endpoint (metrics and health) listens.
 *
 * @param host the address to bind, e.g. {@code 127.0.0.1}
 * @param port the TCP port
 */
public record HttpConfig(String host, int port) {

  /** Reads the {@code http.*} keys: {@code null} (no endpoint) without a port. */
  static HttpConfig from(ConfigValues v) {
    Integer port = v.get(RelayConfigKeys.HTTP_PORT);
    return port == null ? null : new HttpConfig(v.get(RelayConfigKeys.HTTP_HOST), port);
  }
}
