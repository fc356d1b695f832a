package io.outboxrelay.writer.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.writer.spring.StarterDatabase;
import io.outboxrelay.writer.spring.jpa.ShipmentApplication.Seen;
import io.outboxrelay.writer.spring.jpa.ShipmentApplication.ShipmentService;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The outbox in a JPA transaction, as docs/spring-boot.md describes it: the outbox's INSERT runs at
 * once on the JDBC connection that JpaTransactionManager bound, the one Hibernate flushes through
 * at commit; when that flush fails (a constraint the entity does not check), the transaction rolls
 * back and the event with it. A real Spring Boot application with Spring Data JPA on Hibernate and
 * HikariCP; a subclass supplies the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractJpaTransactionIT {

  private StarterDatabase db;
  private ConfigurableApplicationContext app;
  private ShipmentService service;

  /** A fresh database with the outbox table. */
  protected abstract StarterDatabase newDatabase();

  @BeforeAll
  void startApplication() {
    db = newDatabase();
    db.execute(
        "CREATE TABLE shipments (id VARCHAR(64) PRIMARY KEY, reference VARCHAR(64) NOT NULL"
            + " UNIQUE)");
    List<String> properties = new ArrayList<>(db.dataSourceProperties());
    properties.add("spring.jpa.hibernate.ddl-auto=none");
    app =
        new SpringApplicationBuilder(ShipmentApplication.class)
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
    assertThat(app.getBean(PlatformTransactionManager.class))
        .isInstanceOf(JpaTransactionManager.class);
    service = app.getBean(ShipmentService.class);
  }

  @AfterAll
  void stopApplication() {
    try {
      if (app != null) {
        app.close();
      }
    } finally {
      db.close();
    }
  }

  private long events(String shipmentId) {
    return db.count("outbox_events WHERE aggregate_id = '" + shipmentId + "'");
  }

  private long shipments(String shipmentId) {
    return db.count("shipments WHERE id = '" + shipmentId + "'");
  }

  @Test
  void appendsOnTheConnectionOfTheJpaTransactionAndCommitsWithTheEntity() {
    String id = "s-" + UUID.randomUUID();

    String eventId = service.ship(id, "ref-" + id);

    assertThat(service.lastSeen())
        .as("the event's row was visible to Hibernate's connection before the commit; the entity's")
        .isEqualTo(new Seen(eventId, 1, 0));
    assertThat(events(id)).isEqualTo(1);
    assertThat(shipments(id)).isEqualTo(1);
  }

  @Test
  void rollsTheEventBackWhenTheFlushAtCommitFails() {
    String taken = "ref-" + UUID.randomUUID();
    String first = "s-" + UUID.randomUUID();
    String second = "s-" + UUID.randomUUID();
    service.ship(first, taken);

    assertThatThrownBy(() -> service.ship(second, taken))
        .isInstanceOf(DataIntegrityViolationException.class);

    Seen seen = service.lastSeen();
    assertThat(seen.eventRowsSeenByHibernate())
        .as("the event had been written in the transaction")
        .isEqualTo(1);
    assertThat(seen.shipmentRowsBeforeFlush())
        .as("the failing INSERT was the flush at commit")
        .isZero();
    assertThat(db.count("outbox_events WHERE " + db.eventIdIs("event_id", seen.eventId())))
        .isZero();
    assertThat(events(second)).isZero();
    assertThat(shipments(second)).isZero();
    assertThat(events(first)).isEqualTo(1);
  }
}
