package io.outboxrelay.examples.notifications;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.idempotency.kafka.PoisonRecordException;
import io.outboxrelay.idempotency.kafka.RecordHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Applies the order service's events to the notification service's tables: {@code OrderCreated}
 * adds a {@code customer_orders} row, {@code OrderPaid} marks it paid and records a {@code
 * PAYMENT_RECEIVED} notification. Other event types of the topic are not this service's business
 * and change nothing (their ids are still recorded as processed).
 *
 * <p>The statements are plain, not idempotent on their own: a second {@code OrderPaid} would add a
 * second notification. Running them through {@link
 * io.outboxrelay.idempotency.kafka.IdempotentConsumer}, in the transaction that records the event
 * id, is what makes a redelivery harmless.
 *
 * <p>Stateless and thread-safe.
 */
public final class OrderEventHandler implements RecordHandler {

  /** The {@code notifications.kind} of the notification an {@code OrderPaid} event sends. */
  public static final String PAYMENT_RECEIVED = "PAYMENT_RECEIVED";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * Applies one event on the consumer's connection; never commits.
   *
   * @param record an event of the order topic: header {@code event_type}, JSON payload
   * @param connection the idempotent processor's transaction
   * @throws PoisonRecordException if the record has no event type, its payload is not the expected
   *     JSON, or it pays an order this service never saw created: retrying cannot help
   * @throws SQLException if the database fails (retried by the consumer)
   */
  @Override
  public void handle(ConsumerRecord<byte[], byte[]> record, Connection connection)
      throws SQLException {
    Header type = record.headers().lastHeader("event_type");
    if (type == null || type.value() == null) {
      throw new PoisonRecordException("the record has no event_type header");
    }
    switch (new String(type.value(), StandardCharsets.UTF_8)) {
      case "OrderCreated" -> orderCreated(payload(record), connection);
      case "OrderPaid" -> orderPaid(payload(record), connection);
      default -> {
        // not an event this service reacts to
      }
    }
  }

  private static void orderCreated(JsonNode event, Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO customer_orders (order_id, customer_id, amount, currency, status)"
                + " VALUES (?, ?, ?, ?, 'CREATED')")) {
      ps.setString(1, text(event, "orderId"));
      ps.setString(2, text(event, "customerId"));
      ps.setBigDecimal(3, required(event, "amount").decimalValue());
      ps.setString(4, text(event, "currency"));
      ps.executeUpdate();
    }
  }

  private static void orderPaid(JsonNode event, Connection c) throws SQLException {
    String orderId = text(event, "orderId");
    // paid_at is the database clock at the moment the payment became known here.
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE customer_orders SET status = 'PAID', paid_at = CURRENT_TIMESTAMP(6)"
                + " WHERE order_id = ?")) {
      ps.setString(1, orderId);
      if (ps.executeUpdate() != 1) {
        // Each order's events share a key, hence a partition: OrderCreated always comes first.
        throw new PoisonRecordException("OrderPaid of an order never created here: " + orderId);
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO notifications (order_id, customer_id, kind)"
                + " SELECT order_id, customer_id, ? FROM customer_orders WHERE order_id = ?")) {
      ps.setString(1, PAYMENT_RECEIVED);
      ps.setString(2, orderId);
      ps.executeUpdate();
    }
  }

  private static JsonNode payload(ConsumerRecord<byte[], byte[]> record) {
    if (record.value() == null) {
      throw new PoisonRecordException("the event has no payload");
    }
    try {
      return JSON.readTree(record.value());
    } catch (JsonProcessingException e) {
      throw new PoisonRecordException("the payload is not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // reading from memory: not expected
    }
  }

  private static String text(JsonNode event, String field) {
    return required(event, field).asText();
  }

  private static JsonNode required(JsonNode event, String field) {
    JsonNode value = event.get(field);
    if (value == null || value.isNull()) {
      throw new PoisonRecordException("the payload has no " + field);
    }
    return value;
  }
}
