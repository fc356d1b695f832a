/**
 * Publishing to Kafka: the idempotent producer behind {@link
 * io.outboxrelay.relay.publish.KafkaPublisher}, the size check of a record before it is sent
 * ({@link io.outboxrelay.relay.publish.RecordSizeLimit} for the producer's limits, {@link
 * io.outboxrelay.relay.publish.TopicLimits} for each topic's), and whether Kafka answers at all
 * ({@link io.outboxrelay.relay.publish.KafkaBreaker}). Shared by the CDC and polling sources; what
 * a failed send means is decided in {@link io.outboxrelay.relay.failure}.
 */
package io.outboxrelay.relay.publish;
