/**
 * The relay's read-only HTTP endpoint: {@code /metrics} in the Prometheus text format, {@code
 * /health/live} and {@code /health/ready} for orchestrators, served by the JDK's HTTP server when
 * {@code http.port} is set.
 */
package io.outboxrelay.relay.http;
