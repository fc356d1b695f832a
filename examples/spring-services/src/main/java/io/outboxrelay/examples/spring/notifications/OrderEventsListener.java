package io.outboxrelay.examples.spring.notifications;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.idempotency.spring.IdempotentListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.stereotype.Component;

/**
 * Applies the order service's events. {@link IdempotentListener} runs each call in a transaction of
 * the application's transaction manager that first records the event id in {@code processed_events}
 * on the same connection: a redelivered event is skipped before this method runs, an older version
 * of an order than the last applied one too ({@code outbox.consumer.version-check.enabled=true}),
 * and a failure rolls back the repositories' writes and the id together, for spring-kafka's error
 * handler to retry or dead-letter.
 */
@Component
public class OrderEventsListener {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final CustomerOrders orders;
  private final Notifications notifications;

  /** Customers whose orders this service refuses (the demo's failing listener). */
  private final Set<String> refusedCustomers = ConcurrentHashMap.newKeySet();

  OrderEventsListener(CustomerOrders orders, Notifications notifications) {
    this.orders = orders;
    this.notifications = notifications;
  }

  /**
   * From now on, fails every event of this customer's orders (after its writes, which the rollback
   * undoes).
   *
   * @param customer the customer
   */
  public void refuse(String customer) {
    refusedCustomers.add(customer);
  }

  /**
   * Applies one event.
   *
   * @param value the payload JSON
   * @param eventType the relay's {@code event_type} header
   * @throws Exception when the payload cannot be read, or the customer is refused
   */
  @KafkaListener(id = "order-events", topics = "${orders.topic}", groupId = "notifications")
  @IdempotentListener
  public void on(@Payload String value, @Header("event_type") String eventType) throws Exception {
    JsonNode event = JSON.readTree(value);
    String orderId = event.get("orderId").asText();
    String customer = event.get("customer").asText();
    switch (eventType) {
      case "OrderCreated" -> {
        orders.save(new CustomerOrder(orderId, customer, event.get("amountCents").asLong()));
        notifications.save(
            new Notification(orderId, "ORDER_CONFIRMED", "Thank you for your order, " + customer));
      }
      case "OrderPaid" -> {
        CustomerOrder order = orders.findById(orderId).orElseThrow();
        order.paid();
        notifications.save(new Notification(orderId, "PAYMENT_RECEIVED", "Payment received"));
      }
      default -> {
        return; // another event type: nothing to do
      }
    }
    if (refusedCustomers.contains(customer)) {
      // After the writes: the rollback must undo them, and the processed_events row with them.
      throw new IllegalStateException("notifications for " + customer + " are switched off");
    }
  }
}
