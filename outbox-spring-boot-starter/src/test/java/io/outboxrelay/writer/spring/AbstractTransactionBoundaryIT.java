package io.outboxrelay.writer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.writer.spring.BoundaryApplication.AfterCommitListener;
import io.outboxrelay.writer.spring.BoundaryApplication.BoundaryService;
import io.outboxrelay.writer.spring.BoundaryApplication.OtherResourceTransactionManager;
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
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Where a Spring application's transaction ends, the outbox refuses: a real Spring Boot application
 * on MariaDB with HikariCP, under one pool auto-commit setting and one transaction manager per
 * subclass. Each refusal must leave no event at all; a row that came in afterwards would be an
 * event committed apart from its business change.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractTransactionBoundaryIT {

  /** The Spring Boot auto-configuration classes of Hibernate JPA, in Boot 4 and in Boot 3. */
  static final String HIBERNATE_AUTO_CONFIGURATION =
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
          + "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration";

  /** Whether the pool's connections start in auto-commit mode. */
  protected abstract boolean poolAutoCommit();

  /** Whether the application's transaction manager is JPA's (else the DataSource's). */
  protected abstract boolean jpa();

  private StarterDatabase db;
  private ConfigurableApplicationContext app;
  private BoundaryService service;

  @BeforeAll
  void startApplication() {
    db = StarterDatabase.mariaDb();
    List<String> properties = new ArrayList<>(db.dataSourceProperties());
    properties.add("spring.datasource.hikari.auto-commit=" + poolAutoCommit());
    if (!jpa()) {
      properties.add("spring.autoconfigure.exclude=" + HIBERNATE_AUTO_CONFIGURATION);
    }
    app =
        new SpringApplicationBuilder(BoundaryApplication.class)
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
    service = app.getBean(BoundaryService.class);
    PlatformTransactionManager manager = app.getBean(PlatformTransactionManager.class);
    if (jpa()) {
      assertThat(manager).isInstanceOf(JpaTransactionManager.class);
    } else {
      assertThat(manager).isInstanceOf(DataSourceTransactionManager.class);
    }
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

  private static String orderId() {
    return "o-" + UUID.randomUUID();
  }

  /** The events of the order's aggregate. */
  private long eventsOf(String orderId) {
    return db.count("outbox_events WHERE aggregate_id = '" + orderId + "'");
  }

  private long orders(String orderId) {
    return db.count("orders WHERE id = '" + orderId + "'");
  }

  @Test
  void commitsTheEventWithTheBusinessChangeInsideTheTransactionalMethod() {
    String orderId = orderId();

    String eventId = service.place(orderId);

    assertThat(db.count("outbox_events WHERE event_id = '" + eventId + "'")).isEqualTo(1);
    assertThat(eventsOf(orderId)).isEqualTo(1);
    assertThat(orders(orderId)).isEqualTo(1);
  }

  @Test
  void refusesAnAppendFromAnAfterCommitListenerAndWritesNothing() {
    String orderId = orderId();
    AfterCommitListener listener = app.getBean(AfterCommitListener.class);
    listener.outcome.set(null);

    service.placeAndAnnounce(orderId);

    assertThat(listener.outcome.get())
        .isInstanceOfSatisfying(
            IllegalTransactionStateException.class,
            e ->
                assertThat(e.getMessage())
                    .isEqualTo(SpringOutbox.COMPLETED)
                    .contains("AFTER_COMMIT", "BEFORE_COMMIT", "REQUIRES_NEW"));
    assertThat(orders(orderId)).isEqualTo(1);
    // Neither rolled back by the pool nor committed later when auto-commit is restored: never sent.
    assertThat(eventsOf(orderId)).isZero();
    service.place(orderId());
    assertThat(eventsOf(orderId)).isZero();
  }

  @Test
  void refusesAnAppendInATransactionOfAnotherResourceAndWritesNothing() {
    String orderId = orderId();
    TransactionTemplate other = new TransactionTemplate(new OtherResourceTransactionManager());

    assertThatThrownBy(() -> other.executeWithoutResult(status -> service.append(orderId)))
        .isInstanceOf(IllegalTransactionStateException.class)
        .hasMessage(SpringOutbox.OTHER_RESOURCE);

    assertThat(eventsOf(orderId)).isZero();
    service.place(orderId());
    assertThat(eventsOf(orderId)).isZero();
  }
}
