/**
 * The relay's read-only HTTP endpoint: {@code /metrics} in the Prometheus text format, {@code
 * /health/live} and {@code /health/ready} for orchestrators, served by one thread on non-blocking
 * sockets with a deadline per request and a cap on open connections, when {@code http.port} is set.
 */
package io.outboxrelay.relay.http;
