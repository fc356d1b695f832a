/**
 * A Kafka consumer loop on top of {@link io.outboxrelay.idempotency.IdempotentProcessor}: {@link
 * io.outboxrelay.idempotency.kafka.IdempotentConsumer} takes the event id from a record header,
 * runs the handler in the processor's transaction and commits the Kafka offset only after the
 * database commit, so a crash between the two leads to a redelivery that is recognised as a
 * duplicate. Failing records are retried with capped backoff on a paused partition, then
 * dead-lettered or stop the consumer ({@link io.outboxrelay.idempotency.kafka.FailurePolicy}).
 * Needs {@code kafka-clients} on the classpath (the module declares it {@code provided}). When the
 * OpenTelemetry API is on the classpath too (optional), each record is processed in a CONSUMER span
 * under the trace of its W3C {@code traceparent} header ({@link
 * io.outboxrelay.idempotency.kafka.IdempotentConsumer.Builder#openTelemetry}).
 */
package io.outboxrelay.idempotency.kafka;
