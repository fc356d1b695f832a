/**
 * The relay process: {@link io.outboxrelay.relay.RelayRunner} wires a source (CDC or polling) to
 * the Kafka publisher, runs it until a signal or a fatal failure, and drains on the way out.
 */
package io.outboxrelay.relay;
