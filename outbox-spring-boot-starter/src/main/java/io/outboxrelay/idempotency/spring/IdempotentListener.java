package io.outboxrelay.idempotency.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code @KafkaListener} apply each event once per consumer group. On a method, that
 * method's {@code @KafkaListener}; on a class, every {@code @KafkaListener} of the class (method or
 * class level). Without a {@code @KafkaListener} it does nothing.
 *
 * <p>For each record the listener container delivers, before the method runs and in one transaction
 * of the application's transaction manager:
 *
 * <ol>
 *   <li>the event id (header {@code id}) and, with the version check on, the aggregate version
 *       (header {@code aggregate_version}) are read from the record, as consumer-idempotency's
 *       {@code IdempotentConsumer} reads them; a record without a valid id fails with {@code
 *       PoisonRecordException};
 *   <li>the id is inserted into {@code processed_events} under the container's {@code group.id}, on
 *       the connection Spring bound to the transaction for the application's {@code DataSource};
 *   <li>a redelivered event (id already recorded) and, with the version check on, a stale one (its
 *       version not above the aggregate's last applied version) are skipped: the method does not
 *       run, the record counts as handled (a manual acknowledgment is made for it);
 *   <li>otherwise the method runs in that transaction: what it does through JPA, JDBC or {@code
 *       JdbcTemplate} on the {@code DataSource} commits with the id, and an exception it throws
 *       rolls back both and goes on to the container's error handler (retries, dead-letter topic).
 * </ol>
 *
 * <p>The listener must be a record listener (not a batch listener) with a synchronous return type,
 * and must not end or leave the transaction ({@code Propagation.REQUIRES_NEW} work commits on its
 * own). An event id already recorded with another payload, with the conflict check on, fails with a
 * {@code PoisonRecordException} whose message starts with {@code event id conflict:}.
 *
 * <pre>{@code
 * @KafkaListener(topics = "outbox.event.order", groupId = "billing")
 * @IdempotentListener
 * public void on(OrderPlaced event) {
 *   invoices.save(Invoice.forOrder(event.orderId()));   // a Spring Data JPA repository
 * }
 * }</pre>
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentListener {}
