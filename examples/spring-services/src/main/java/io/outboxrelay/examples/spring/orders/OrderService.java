package io.outboxrelay.examples.spring.orders;

import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.spring.Outbox;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Writes an order and its event in one transaction: the JPA repository's insert or update and the
 * {@link Outbox}'s insert into {@code outbox_events} commit together, or neither does. The relay
 * publishes the event to {@code <prefix>order}, keyed by the order id.
 */
@Service
public class OrderService {

  private final Orders orders;
  private final Outbox outbox;

  OrderService(Orders orders, Outbox outbox) {
    this.orders = orders;
    this.outbox = outbox;
  }

  /**
   * Creates an order and its {@code OrderCreated} event (version 1).
   *
   * @param customer the customer
   * @param amountCents the amount
   * @return the order id
   */
  @Transactional
  public String place(String customer, long amountCents) {
    PurchaseOrder order =
        orders.save(new PurchaseOrder(UUID.randomUUID().toString(), customer, amountCents));
    outbox.append(event(order, "OrderCreated"));
    return order.id();
  }

  /**
   * Marks an order paid and writes its {@code OrderPaid} event (version 2).
   *
   * @param orderId the order
   */
  @Transactional
  public void pay(String orderId) {
    PurchaseOrder order = orders.findById(orderId).orElseThrow();
    order.pay();
    outbox.append(event(order, "OrderPaid"));
  }

  /**
   * Creates an order, then fails before the transaction commits: neither the order nor its event is
   * written.
   *
   * @param customer the customer
   */
  @Transactional
  public void placeAndFail(String customer) {
    place(customer, 1);
    throw new IllegalStateException("payment provider refused " + customer);
  }

  private static NewEvent event(PurchaseOrder order, String type) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("orderId", order.id());
    payload.put("customer", order.customer());
    payload.put("amountCents", order.amountCents());
    payload.put("status", order.status());
    return NewEvent.builder("order", order.id(), type)
        .payload(payload)
        .aggregateVersion(order.version())
        .build();
  }
}
