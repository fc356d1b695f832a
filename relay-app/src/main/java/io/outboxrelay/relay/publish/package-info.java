/**
 * Publishing to Kafka: the idempotent producer behind {@link
 * io.outboxrelay.relay.publish.KafkaPublisher}, the one place that decides whether a failure is
 * worth retrying ({@link io.outboxrelay.relay.publish.ErrorClassifier}), retry pauses ({@link
 * io.outboxrelay.relay.publish.Backoff}), and whether Kafka answers at all ({@link
 * io.outboxrelay.relay.publish.KafkaBreaker}). Shared by the CDC and polling sources.
 */
package io.outboxrelay.relay.publish;
