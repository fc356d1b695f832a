package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.NewEvent;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A Spring Boot application as users write one: a service whose transactions write events. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class OrderApplication {

  /**
   * The order service bean.
   *
   * @param jdbc the application's JdbcTemplate
   * @param outbox the auto-configured outbox
   * @return the service
   */
  @Bean
  public OrderService orderService(JdbcTemplate jdbc, Outbox outbox) {
    return new OrderService(jdbc, outbox);
  }

  /** The payload of the events. */
  public record OrderPlaced(String orderId, long amountCents) {}

  /** Writes an order and its event; not final, so that Spring can proxy its transactions. */
  public static class OrderService {

    private final JdbcTemplate jdbc;
    private final Outbox outbox;

    /**
     * Creates the service.
     *
     * @param jdbc the application's JdbcTemplate
     * @param outbox the outbox
     */
    public OrderService(JdbcTemplate jdbc, Outbox outbox) {
      this.jdbc = jdbc;
      this.outbox = outbox;
    }

    /** The order and its event in one transaction; returns the event id. */
    @Transactional
    public String place(String orderId) {
      jdbc.update("INSERT INTO orders (id) VALUES (?)", orderId);
      return outbox.append(placed(orderId));
    }

    /** Writes the order and its event, then fails: both roll back. */
    @Transactional
    public String placeThenFail(String orderId) {
      place(orderId);
      throw new IllegalStateException("credit limit exceeded");
    }

    /** No transaction at all. */
    public String placeWithoutTransaction(String orderId) {
      return outbox.append(placed(orderId));
    }

    /** A synchronisation is active but no transaction is (no outer one exists). */
    @Transactional(propagation = Propagation.SUPPORTS)
    public String placeWithSupports(String orderId) {
      if (!TransactionSynchronizationManager.isSynchronizationActive()) {
        throw new AssertionError("the case needs an active synchronisation");
      }
      return outbox.append(placed(orderId));
    }

    /** A read-only transaction. */
    @Transactional(readOnly = true)
    public String placeReadOnly(String orderId) {
      return outbox.append(placed(orderId));
    }

    private static NewEvent placed(String orderId) {
      return NewEvent.builder("order", orderId, "OrderPlaced")
          .payload(new OrderPlaced(orderId, 1250))
          .aggregateVersion(1)
          .headers(Map.of("tenant", "acme"))
          .build();
    }
  }
}
