package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.NewEvent;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * An application whose transactions end where the outbox must refuse to write: an {@code
 * AFTER_COMMIT} listener, and a transaction manager of another resource. Its transaction manager is
 * whatever Spring Boot auto-configures (JPA's when Hibernate is enabled, else the DataSource's).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BoundaryApplication {

  /**
   * The service.
   *
   * @param jdbc the JdbcTemplate
   * @param outbox the outbox
   * @param events the event publisher
   * @return the service
   */
  @Bean
  public BoundaryService boundaryService(
      JdbcTemplate jdbc, Outbox outbox, ApplicationEventPublisher events) {
    return new BoundaryService(jdbc, outbox, events);
  }

  /**
   * The listener that appends after the commit.
   *
   * @param outbox the outbox
   * @return the listener
   */
  @Bean
  public AfterCommitListener afterCommitListener(Outbox outbox) {
    return new AfterCommitListener(outbox);
  }

  /** Published by a transaction: the order it placed. */
  public record OrderPlacedEvent(String orderId) {}

  /** Writes orders; not final, so that Spring can proxy its transactions. */
  public static class BoundaryService {
    private final JdbcTemplate jdbc;
    private final Outbox outbox;
    private final ApplicationEventPublisher events;

    /**
     * Creates the service.
     *
     * @param jdbc the JdbcTemplate
     * @param outbox the outbox
     * @param events the event publisher
     */
    public BoundaryService(JdbcTemplate jdbc, Outbox outbox, ApplicationEventPublisher events) {
      this.jdbc = jdbc;
      this.outbox = outbox;
      this.events = events;
    }

    /** The order and its event in one transaction; returns the event id. */
    @Transactional
    public String place(String orderId) {
      jdbc.update("INSERT INTO orders (id) VALUES (?)", orderId);
      return outbox.append(placed(orderId));
    }

    /** The order in a transaction whose AFTER_COMMIT listener appends the event. */
    @Transactional
    public void placeAndAnnounce(String orderId) {
      jdbc.update("INSERT INTO orders (id) VALUES (?)", orderId);
      events.publishEvent(new OrderPlacedEvent(orderId));
    }

    /** Appends the event, in whatever transaction the caller has. */
    public String append(String orderId) {
      return outbox.append(placed(orderId));
    }
  }

  /** Appends in the AFTER_COMMIT phase and keeps what came of it (Spring swallows exceptions). */
  public static class AfterCommitListener {
    private final Outbox outbox;

    /** The event id returned, or the exception thrown, by the last append. */
    public final AtomicReference<Object> outcome = new AtomicReference<>();

    /**
     * Creates the listener.
     *
     * @param outbox the outbox
     */
    public AfterCommitListener(Outbox outbox) {
      this.outbox = outbox;
    }

    /** Appends the order's event after the commit. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
    public void afterCommit(OrderPlacedEvent event) {
      try {
        outcome.set(outbox.append(placed(event.orderId())));
      } catch (RuntimeException e) {
        outcome.set(e);
      }
    }
  }

  static NewEvent placed(String orderId) {
    return NewEvent.of("order", orderId, "OrderPlaced", "{}");
  }

  /**
   * A transaction manager of a resource that is no JDBC connection (a message broker's, say): its
   * transactions are real to Spring, and bind nothing for the DataSource.
   */
  public static final class OtherResourceTransactionManager
      extends AbstractPlatformTransactionManager {

    @Override
    protected Object doGetTransaction() {
      return new Object();
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {}

    @Override
    protected void doCommit(DefaultTransactionStatus status) {}

    @Override
    protected void doRollback(DefaultTransactionStatus status) {}
  }
}
