package io.outboxrelay.writer.spring.jpa;

import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.spring.Outbox;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.atomic.AtomicReference;
import org.hibernate.Session;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.annotation.Transactional;

/**
 * A shipping service on Spring Data JPA (Hibernate, HikariCP, JpaTransactionManager) that writes a
 * shipment through its repository and the shipment's event through the starter's {@link Outbox} in
 * one {@code @Transactional} method. Its table, {@code shipments}, has a unique {@code reference}
 * that the entity does not check: a second shipment with a taken reference fails only when
 * Hibernate flushes its INSERT, at the commit.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableJpaRepositories(considerNestedRepositories = true)
public class ShipmentApplication {

  /**
   * The service.
   *
   * @param shipments the repository
   * @param outbox the starter's outbox
   * @param entityManagers the JPA entity manager factory
   * @return the service
   */
  @Bean
  public ShipmentService shipmentService(
      Shipments shipments, Outbox outbox, EntityManagerFactory entityManagers) {
    return new ShipmentService(
        shipments, outbox, SharedEntityManagerCreator.createSharedEntityManager(entityManagers));
  }

  /** A shipment; not final, for Hibernate. */
  @Entity
  @Table(name = "shipments")
  public static class Shipment {
    @Id private String id;
    private String reference;

    /** For JPA. */
    protected Shipment() {}

    Shipment(String id, String reference) {
      this.id = id;
      this.reference = reference;
    }
  }

  /** The shipments. */
  public interface Shipments extends JpaRepository<Shipment, String> {}

  /**
   * What the transaction saw on Hibernate's own connection just after the outbox's append, before
   * the commit.
   *
   * @param eventId the appended event
   * @param eventRowsSeenByHibernate the outbox rows of the event that Hibernate's connection sees:
   *     1 when the outbox's INSERT ran on that connection, in this transaction
   * @param shipmentRowsBeforeFlush the shipment's rows in the table at that time: 0 while Hibernate
   *     holds its INSERT for the flush at commit
   */
  public record Seen(String eventId, long eventRowsSeenByHibernate, long shipmentRowsBeforeFlush) {}

  /** Writes shipments and their events; not final, so that Spring can proxy its transactions. */
  public static class ShipmentService {
    private final Shipments shipments;
    private final Outbox outbox;
    private final EntityManager entityManager;

    private final AtomicReference<Seen> seen = new AtomicReference<>();

    ShipmentService(Shipments shipments, Outbox outbox, EntityManager entityManager) {
      this.shipments = shipments;
      this.outbox = outbox;
      this.entityManager = entityManager;
    }

    /**
     * Saves a shipment with the repository, then appends its event; the shipment's INSERT waits for
     * the flush at commit (an assigned id: Spring Data merges, Hibernate inserts at flush).
     *
     * @param id the shipment id
     * @param reference its reference, unique in the table
     * @return the event id
     */
    @Transactional
    public String ship(String id, String reference) {
      shipments.save(new Shipment(id, reference));
      String eventId =
          outbox.append(
              NewEvent.builder("shipment", id, "ShipmentCreated")
                  .payload("{\"reference\":\"" + reference + "\"}")
                  .build());
      seen.set(
          new Seen(
              eventId,
              count("SELECT COUNT(*) FROM outbox_events WHERE aggregate_id = ?", id),
              count("SELECT COUNT(*) FROM shipments WHERE id = ?", id)));
      return eventId;
    }

    /**
     * What the last {@link #ship} saw before its commit (a method: the transactional proxy has no
     * state of its own).
     *
     * @return what it saw, or {@code null}
     */
    public Seen lastSeen() {
      return seen.get();
    }

    /** A count on the connection Hibernate uses in this transaction (no flush: plain JDBC work). */
    private long count(String sql, String id) {
      return entityManager
          .unwrap(Session.class)
          .doReturningWork(
              connection -> {
                try (PreparedStatement select = connection.prepareStatement(sql)) {
                  select.setString(1, id);
                  try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                  }
                }
              });
    }
  }
}
