/**
 * Publishing to Kafka: the idempotent producer behind {@link
 * io.outboxrelay.relay.publish.KafkaPublisher}, the one place that decides whether a failure is
 * worth retrying ({@link io.outboxrelay.relay.publish.ErrorClassifier}), and retry pauses ({@link
 * io.outboxrelay.relay.publish.Backoff}). Shared by the CDC and polling sources.
 */
package io.outboxrelay.relay.publish;
