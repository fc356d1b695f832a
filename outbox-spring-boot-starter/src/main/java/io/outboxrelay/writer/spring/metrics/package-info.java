/**
 * Micrometer meters for the application half, when Micrometer is on the classpath: the events the
 * {@link io.outboxrelay.writer.spring.Outbox} bean appended in transactions that committed ({@code
 * outbox.writer.events.appended}), and what each {@code IdempotentProcessor} bean of
 * consumer-idempotency and each group's {@code @IdempotentListener} listeners did with the events
 * they were given ({@code outbox.consumer.events}). Spring Boot's Actuator binds them to its
 * registry and shows them under {@code /actuator/metrics}.
 */
package io.outboxrelay.writer.spring.metrics;
