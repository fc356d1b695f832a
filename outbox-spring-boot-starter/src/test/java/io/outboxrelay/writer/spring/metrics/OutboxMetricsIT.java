package io.outboxrelay.writer.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.outboxrelay.idempotency.EventRef;
import io.outboxrelay.idempotency.GapPolicy;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.spring.OrderApplication;
import io.outboxrelay.writer.spring.OrderApplication.OrderService;
import io.outboxrelay.writer.spring.Outbox;
import io.outboxrelay.writer.spring.StarterDatabase;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The meters in a real Spring Boot application with Actuator on MariaDB: what the {@code Outbox}
 * appended in committed transactions, and what two consumer groups' processors did, read from the
 * registry and from Actuator's metrics endpoint (the one behind {@code /actuator/metrics}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutboxMetricsIT {

  /** Two processors of one group (their counts add up) and one of another. */
  @Configuration(proxyBeanMethods = false)
  static class Processors {
    @Bean
    IdempotentProcessor billingOne(DataSource dataSource) {
      return IdempotentProcessor.builder(dataSource, "billing")
          .versionCheck(GapPolicy.ACCEPT)
          .build();
    }

    @Bean
    IdempotentProcessor billingTwo(DataSource dataSource) {
      return IdempotentProcessor.builder(dataSource, "billing")
          .versionCheck(GapPolicy.ACCEPT)
          .build();
    }

    @Bean
    IdempotentProcessor shipping(DataSource dataSource) {
      return IdempotentProcessor.builder(dataSource, "shipping").build();
    }
  }

  private StarterDatabase db;
  private ConfigurableApplicationContext app;

  @BeforeAll
  void startApplication() {
    db = StarterDatabase.mariaDb();
    db.execute(
        ProjectFiles.sqlStatements("config/mysql/processed-events.sql").toArray(String[]::new));
    List<String> properties = new ArrayList<>(db.dataSourceProperties());
    properties.add(
        "spring.autoconfigure.exclude="
            + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration");
    properties.add("management.endpoints.web.exposure.include=metrics");
    app =
        new SpringApplicationBuilder(OrderApplication.class, Processors.class)
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
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

  @Test
  void countsTheEventsOfCommittedTransactionsByAggregateAndEventType() throws Exception {
    OrderService orders = app.getBean(OrderService.class);
    Outbox outbox = app.getBean(Outbox.class);
    TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));

    orders.place("o-1");
    orders.place("o-2");
    assertThatThrownBy(() -> orders.placeThenFail("o-3")).hasMessage("credit limit exceeded");
    assertThatThrownBy(() -> orders.placeWithoutTransaction("o-4"))
        .hasMessageContaining("outside a transaction");
    tx.execute(
        status ->
            outbox.appendAll(
                List.of(
                    NewEvent.of("order", "o-1", "OrderPaid", "{}"),
                    NewEvent.of("order", "o-2", "OrderPaid", "{}"),
                    NewEvent.of("payment", "p-1", "PaymentTaken", "{}"))));
    tx.execute(
        status -> {
          outbox.append(NewEvent.of("order", "o-5", "OrderPaid", "{}"));
          status.setRollbackOnly();
          return null;
        });

    assertThat(db.count("outbox_events")).isEqualTo(5);
    MeterRegistry registry = app.getBean(MeterRegistry.class);
    assertThat(appended(registry, "order", "OrderPlaced")).isEqualTo(2);
    assertThat(appended(registry, "order", "OrderPaid")).isEqualTo(2);
    assertThat(appended(registry, "payment", "PaymentTaken")).isEqualTo(1);
    assertThat(actuatorCount(WriterMetrics.APPENDED)).isEqualTo(5);
    assertThat(actuatorCount(WriterMetrics.APPENDED, "aggregate.type:order")).isEqualTo(4);
    assertThat(actuatorCount(WriterMetrics.APPENDED, "event.type:OrderPaid")).isEqualTo(2);
  }

  @Test
  void countsWhatTheProcessorsDidByConsumerGroupAndOutcome() throws Exception {
    IdempotentProcessor billingOne = app.getBean("billingOne", IdempotentProcessor.class);
    IdempotentProcessor billingTwo = app.getBean("billingTwo", IdempotentProcessor.class);
    IdempotentProcessor shipping = app.getBean("shipping", IdempotentProcessor.class);

    assertThat(billingOne.process("e-1", c -> {})).isEqualTo(Outcome.PROCESSED);
    assertThat(billingTwo.process("e-1", c -> {})).isEqualTo(Outcome.DUPLICATE);
    assertThat(billingTwo.process(EventRef.of("e-2", "order", "o-1", 2), c -> {}))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(billingOne.process(EventRef.of("e-3", "order", "o-1", 1), c -> {}))
        .isEqualTo(Outcome.STALE);
    assertThatThrownBy(
            () ->
                billingOne.process(
                    "e-4",
                    c -> {
                      throw new IllegalStateException("handler failed");
                    }))
        .hasMessage("handler failed");
    assertThat(shipping.process("e-1", c -> {})).isEqualTo(Outcome.PROCESSED);

    assertThat(db.count("processed_events WHERE consumer_group = 'billing'")).isEqualTo(3);
    assertThat(actuatorCount(ConsumerMetrics.EVENTS, "consumer.group:billing", "outcome:processed"))
        .isEqualTo(2);
    assertThat(actuatorCount(ConsumerMetrics.EVENTS, "consumer.group:billing", "outcome:duplicate"))
        .isEqualTo(1);
    assertThat(actuatorCount(ConsumerMetrics.EVENTS, "consumer.group:billing", "outcome:stale"))
        .isEqualTo(1);
    assertThat(actuatorCount(ConsumerMetrics.EVENTS, "consumer.group:billing", "outcome:failed"))
        .isEqualTo(1);
    assertThat(actuatorCount(ConsumerMetrics.EVENTS, "consumer.group:billing", "outcome:conflict"))
        .isZero();
    assertThat(actuatorCount(ConsumerMetrics.EVENTS, "consumer.group:shipping")).isEqualTo(1);
    assertThat(
            app.getBean(MeterRegistry.class)
                .get(ConsumerMetrics.EVENTS)
                .tag("consumer.group", "shipping")
                .tag("outcome", "processed")
                .functionCounter()
                .count())
        .isEqualTo(1);
  }

  private static double appended(MeterRegistry registry, String aggregateType, String eventType) {
    return registry
        .get(WriterMetrics.APPENDED)
        .tag("aggregate.type", aggregateType)
        .tag("event.type", eventType)
        .counter()
        .count();
  }

  private double actuatorCount(String name, String... tags) throws Exception {
    return ActuatorMetrics.count(app, name, tags);
  }
}
