/**
 * Idempotent Kafka listeners in a Spring Boot application: a {@code @KafkaListener} method that
 * also carries {@link io.outboxrelay.idempotency.spring.IdempotentListener} runs in a transaction
 * of the application's transaction manager that first records the record's event id in {@code
 * processed_events} (consumer-idempotency's {@link
 * io.outboxrelay.idempotency.IdempotentProcessor#admit}) on the connection bound to it, so the id
 * and everything the method does through JDBC or JPA on that {@code DataSource} commit or roll back
 * together; redeliveries and stale versions are skipped before the method runs. Loaded only with
 * spring-kafka and consumer-idempotency on the classpath ({@link
 * io.outboxrelay.idempotency.spring.IdempotentListenerAutoConfiguration}); configured under {@code
 * outbox.consumer.*}.
 */
package io.outboxrelay.idempotency.spring;
