/**
 * The relay process: {@link io.outboxrelay.relay.Relay} wires an {@link
 * io.outboxrelay.relay.OutboxSource} (CDC or polling) to the Kafka publisher and drains on close;
 * the {@code run} command of {@code io.outboxrelay.relay.cli} runs it until a signal or a fatal
 * failure.
 */
package io.outboxrelay.relay;
