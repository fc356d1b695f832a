/**
 * The relay's configuration: every key is declared once in {@link
 * io.outboxrelay.relay.config.RelayConfigKeys} (type, default, checks, documentation), a properties
 * file is parsed once into the immutable {@link io.outboxrelay.relay.config.RelayConfig}, and every
 * problem is reported at once. Code outside this package never reads raw properties.
 */
package io.outboxrelay.relay.config;
