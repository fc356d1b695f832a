/**
 * What the relay did and how it is: counters and gauges in a Micrometer registry rendered for
 * Prometheus, the health state behind {@code /health/*}, the periodic checks that feed both, and
 * the throughput line and outage messages in the log.
 */
package io.outboxrelay.relay.metrics;
