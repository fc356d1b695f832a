/** Counters of what the relay did, and the periodic throughput line built from them. */
package io.outboxrelay.relay.metrics;
