package io.outboxrelay.examples.orders;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.OutboxWriter;
import io.outboxrelay.writer.jackson.JacksonPayloadSerializer;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * An order service written the transactional-outbox way: every business change and the event
 * describing it are written in ONE database transaction. Either both commit or neither does, so an
 * event is published exactly when its change happened, and the relay does the publishing.
 *
 * <p>The events go through an {@link OutboxWriter} on the service's own connection: it gives each
 * event a UUIDv7 id, turns the payload record into JSON, and, when an OpenTelemetry span is current
 * (the caller's request span), stores its W3C {@code traceparent} in the row's {@code headers}
 * column. The relay publishes that as a Kafka header, so the consumer's span joins the same trace.
 * The service itself does nothing for tracing.
 *
 * <p>Each order has a version, 1 when created and one more with every change, kept in the same row
 * and written with each event as {@code aggregate_version}: the relay publishes it as a header, and
 * a consumer with a version check skips an event older than what it already applied. The row lock
 * of the change serialises an order's events, so its versions commit in order.
 *
 * <p>Thread-safe: each call takes its own connection; the writer is shared.
 */
public final class OrderService {

  /** The payload of {@code OrderCreated}. */
  public record OrderCreated(
      String orderId, String customerId, BigDecimal amount, String currency) {}

  /** The payload of {@code OrderPaid}. */
  public record OrderPaid(String orderId, String paymentId) {}

  private final Supplier<Connection> connections;
  private final OutboxWriter outbox =
      OutboxWriter.builder().serializer(new JacksonPayloadSerializer(new ObjectMapper())).build();

  /**
   * Creates the service.
   *
   * @param connections opens a connection to the service's database (auto-commit is switched off)
   */
  public OrderService(Supplier<Connection> connections) {
    this.connections = connections;
  }

  /**
   * Creates an order and its {@code OrderCreated} event in one transaction.
   *
   * @param customerId the customer
   * @param amount the amount
   * @param currency the ISO currency code
   * @return the new order's id
   * @throws SQLException when the transaction fails (nothing is written)
   */
  public String createOrder(String customerId, BigDecimal amount, String currency)
      throws SQLException {
    String orderId = "order-" + UUID.randomUUID().toString().substring(0, 8);
    inTransaction(
        c -> {
          insertOrder(c, orderId, customerId, amount, currency);
          outbox.append(
              c,
              NewEvent.builder("order", orderId, "OrderCreated")
                  .payload(new OrderCreated(orderId, customerId, amount, currency))
                  .aggregateVersion(1)
                  .build());
        });
    return orderId;
  }

  /**
   * Marks an order paid and writes its {@code OrderPaid} event in one transaction.
   *
   * @param orderId the order
   * @param paymentId the payment that paid it
   * @throws SQLException when the transaction fails (nothing is written)
   */
  public void markPaid(String orderId, String paymentId) throws SQLException {
    inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE orders SET status = 'PAID', version = version + 1 WHERE id = ?")) {
            ps.setString(1, orderId);
            if (ps.executeUpdate() != 1) {
              throw new SQLException("no order " + orderId);
            }
          }
          outbox.append(
              c,
              NewEvent.builder("order", orderId, "OrderPaid")
                  .payload(new OrderPaid(orderId, paymentId))
                  .aggregateVersion(version(c, orderId)) // read under the update's row lock
                  .build());
        });
  }

  /**
   * Starts creating an order and then fails before the commit, as a business rule violation would:
   * the order and its event are rolled back together and nothing is ever published.
   *
   * @param customerId the customer
   * @return the id of the order that was not created
   */
  public String createOrderThenFail(String customerId) {
    String orderId = "order-" + UUID.randomUUID().toString().substring(0, 8);
    try {
      inTransaction(
          c -> {
            insertOrder(c, orderId, customerId, BigDecimal.ONE, "EUR");
            outbox.append(
                c,
                NewEvent.builder("order", orderId, "OrderCreated")
                    .payload(new OrderCreated(orderId, customerId, BigDecimal.ONE, "EUR"))
                    .aggregateVersion(1)
                    .build());
            throw new SQLException("credit limit exceeded");
          });
    } catch (SQLException expected) {
      // rolled back: neither the order nor its event exists
    }
    return orderId;
  }

  private static void insertOrder(
      Connection c, String orderId, String customerId, BigDecimal amount, String currency)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO orders (id, customer_id, amount, currency, status, version)"
                + " VALUES (?, ?, ?, ?, 'CREATED', 1)")) {
      ps.setString(1, orderId);
      ps.setString(2, customerId);
      ps.setBigDecimal(3, amount);
      ps.setString(4, currency);
      ps.executeUpdate();
    }
  }

  private static long version(Connection c, String orderId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT version FROM orders WHERE id = ?")) {
      ps.setString(1, orderId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("no order " + orderId);
        }
        return rs.getLong(1);
      }
    }
  }

  private interface Work {
    void run(Connection c) throws SQLException;
  }

  private void inTransaction(Work work) throws SQLException {
    try (Connection c = connections.get()) {
      c.setAutoCommit(false);
      try {
        work.run(c);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
