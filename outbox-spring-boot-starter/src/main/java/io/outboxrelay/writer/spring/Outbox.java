package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.InvalidEventException;
import io.outboxrelay.writer.NewEvent;
import java.util.List;
import java.util.Objects;

/**
 * Appends events to the outbox table in the Spring-managed transaction in progress: they commit or
 * roll back with the business change of the same transaction. Call it from a {@code @Transactional}
 * method (or inside a {@code TransactionTemplate}) whose transaction manager manages the
 * application's {@code DataSource}, the one this bean writes to.
 *
 * <pre>{@code
 * @Transactional
 * public void pay(String orderId, String paymentId) {
 *   orders.markPaid(orderId, paymentId);
 *   outbox.append(NewEvent.builder("order", orderId, "OrderPaid")
 *       .payload(new OrderPaid(orderId, paymentId))
 *       .build());
 * }
 * }</pre>
 *
 * <p>The rules the events must meet, the headers column and the trace context are those of {@link
 * io.outboxrelay.writer.OutboxWriter}. Thread-safe.
 */
public interface Outbox {

  /**
   * Appends one event in the current transaction.
   *
   * @param event the event; not {@code null}
   * @return its id (the one given, or a new UUIDv7)
   * @throws org.springframework.transaction.IllegalTransactionStateException if no transaction is
   *     in progress (also under an active synchronisation without one, as with {@code
   *     Propagation.SUPPORTS}), the transaction has completed (a {@code TransactionalEventListener}
   *     of phase {@code AFTER_COMMIT}), the transaction is read-only, or its transaction manager
   *     has bound no connection of this bean's {@code DataSource} (another resource's manager);
   *     nothing is written
   * @throws InvalidEventException if the event breaks a rule; nothing is written
   * @throws org.springframework.dao.DataAccessException if the database fails; let it roll the
   *     transaction back
   */
  default String append(NewEvent event) {
    return appendAll(List.of(Objects.requireNonNull(event, "event"))).get(0);
  }

  /**
   * Appends events in the current transaction, in the list's order; all or nothing.
   *
   * @param events the events; not {@code null}, no element {@code null}
   * @return their ids, in the list's order
   * @throws org.springframework.transaction.IllegalTransactionStateException as {@link #append}
   * @throws InvalidEventException if any event breaks a rule; nothing is written
   * @throws org.springframework.dao.DataAccessException if the database fails
   */
  List<String> appendAll(List<NewEvent> events);
}
