package io.outboxrelay.writer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.writer.InvalidEventException;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.PayloadSerializer;
import io.outboxrelay.writer.spring.OrderApplication.OrderService;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter's contract in a real Spring Boot application (auto-configuration, a Hikari
 * DataSource, Spring's transaction manager and {@code @Transactional} proxies) on a real database.
 * A subclass of about twenty lines supplies the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractOutboxStarterContractIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A fresh database with the outbox and orders tables. */
  protected abstract StarterDatabase newDatabase();

  private StarterDatabase db;
  private ConfigurableApplicationContext app;
  private OrderService orders;

  @BeforeAll
  void startApplication() {
    db = newDatabase();
    app = start("spring.jackson.property-naming-strategy=SNAKE_CASE");
    orders = app.getBean(OrderService.class);
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

  @BeforeEach
  void emptyTables() {
    db.execute("DELETE FROM outbox_events", "DELETE FROM orders");
  }

  private ConfigurableApplicationContext start(String... properties) {
    return start(new Class<?>[0], properties);
  }

  private ConfigurableApplicationContext start(Class<?>[] more, String... properties) {
    List<String> all = new ArrayList<>(db.dataSourceProperties());
    // JPA is on the test classpath for the transaction-boundary tests; these run on JDBC alone.
    all.add(
        "spring.autoconfigure.exclude="
            + AbstractTransactionBoundaryIT.HIBERNATE_AUTO_CONFIGURATION);
    all.addAll(List.of(properties));
    List<Class<?>> sources = new ArrayList<>(List.of(OrderApplication.class));
    sources.addAll(List.of(more));
    return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
        .web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new))
        .run();
  }

  private long events(String eventId) {
    return db.count("outbox_events WHERE " + db.eventIdIs("event_id", eventId));
  }

  private String orderId() {
    return "o-" + UUID.randomUUID();
  }

  @Test
  void commitsTheEventWithTheBusinessChangeOfATransactionalMethodExactlyOnce() throws Exception {
    String orderId = orderId();

    String eventId = orders.place(orderId);

    assertThat(events(eventId)).isEqualTo(1);
    assertThat(db.count("outbox_events")).isEqualTo(1);
    assertThat(db.count("orders WHERE id = '" + orderId + "'")).isEqualTo(1);
    String where = " FROM outbox_events WHERE " + db.eventIdIs("event_id", eventId);
    assertThat(db.query("SELECT aggregate_id" + where)).isEqualTo(orderId);
    assertThat(db.query("SELECT event_type" + where)).isEqualTo("OrderPlaced");
    assertThat(((Number) db.query("SELECT aggregate_version" + where)).longValue()).isEqualTo(1);
    assertThat(JSON.readTree(db.query("SELECT headers" + where).toString()))
        .isEqualTo(JSON.readTree("{\"tenant\":\"acme\"}"));
    // The application's ObjectMapper serialised the payload: its snake_case naming shows it.
    JsonNode payload = JSON.readTree(db.query("SELECT payload" + where).toString());
    assertThat(payload)
        .isEqualTo(JSON.readTree("{\"order_id\":\"" + orderId + "\",\"amount_cents\":1250}"));
  }

  @Test
  void leavesNoEventWhenTheTransactionalMethodThrowsAfterAppending() {
    String orderId = orderId();

    assertThatThrownBy(() -> orders.placeThenFail(orderId)).hasMessage("credit limit exceeded");

    assertThat(db.count("outbox_events")).isZero();
    assertThat(db.count("orders")).isZero();
  }

  @Test
  void refusesACallOutsideATransactionAndWritesNothing() {
    assertThatThrownBy(() -> orders.placeWithoutTransaction(orderId()))
        .isInstanceOf(IllegalTransactionStateException.class)
        .hasMessageContaining("outside a transaction")
        .hasMessageContaining("@Transactional")
        .hasMessageContaining("TransactionTemplate");

    assertThat(db.count("outbox_events")).isZero();
  }

  @Test
  void refusesACallUnderASynchronizationWithoutATransactionAndWritesNothing() {
    assertThatThrownBy(() -> orders.placeWithSupports(orderId()))
        .isInstanceOf(IllegalTransactionStateException.class)
        .hasMessageContaining("outside a transaction");

    assertThat(db.count("outbox_events")).isZero();
  }

  @Test
  void refusesACallInAReadOnlyTransactionAndWritesNothing() {
    assertThatThrownBy(() -> orders.placeReadOnly(orderId()))
        .isInstanceOf(IllegalTransactionStateException.class)
        .hasMessageContaining("read-only");

    assertThat(db.count("outbox_events")).isZero();
  }

  @Test
  void appendsInATransactionTemplateAndRefusesABadEventWithoutWriting() {
    Outbox outbox = app.getBean(Outbox.class);
    TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));

    List<String> ids =
        tx.execute(
            status ->
                outbox.appendAll(
                    List.of(
                        NewEvent.of("order", "o-1", "OrderPlaced", "{}"),
                        NewEvent.of("order", "o-1", "OrderPaid", "{}"))));
    assertThatThrownBy(
            () ->
                tx.execute(
                    status ->
                        outbox.append(
                            NewEvent.builder("order", "o-2", "OrderPaid")
                                .payload("{}")
                                .header("id", "x")
                                .build())))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("relay's own header names");

    assertThat(ids).hasSize(2).allSatisfy(id -> assertThat(events(id)).isEqualTo(1));
    assertThat(db.count("outbox_events")).isEqualTo(2);
  }

  @Test
  void bindsTheTableAndColumnNamesFromProperties() {
    db.execute(
        "CREATE TABLE app_events (eid VARCHAR(64) NOT NULL, atype VARCHAR(255) NOT NULL,"
            + " aid VARCHAR(255) NOT NULL, etype VARCHAR(255) NOT NULL, body TEXT NOT NULL,"
            + " ver BIGINT NULL, meta TEXT NULL)");
    try (ConfigurableApplicationContext custom =
        start(
            "outbox.writer.table=app_events",
            "outbox.writer.columns.event-id=eid",
            "outbox.writer.columns.aggregate-type=atype",
            "outbox.writer.columns.aggregate-id=aid",
            "outbox.writer.columns.event-type=etype",
            "outbox.writer.columns.payload=body",
            "outbox.writer.columns.aggregate-version=ver",
            "outbox.writer.columns.headers=",
            "outbox.writer.trace-context=false",
            "outbox.writer.serializer=none")) {
      OutboxWriterProperties properties = custom.getBean(OutboxWriterProperties.class);
      assertThat(properties.getTable()).isEqualTo("app_events");
      assertThat(properties.getColumns().getHeaders()).isEmpty();
      assertThat(properties.isTraceContext()).isFalse();
      assertThat(properties.getSerializer()).isEqualTo(SerializerChoice.NONE);
      OrderService service = custom.getBean(OrderService.class);

      // The headers column is configured away: the service's event with headers is refused.
      assertThatThrownBy(() -> service.place(orderId()))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("headersColumn(null)");
      Outbox outbox = custom.getBean(Outbox.class);
      TransactionTemplate tx =
          new TransactionTemplate(custom.getBean(PlatformTransactionManager.class));
      String id =
          tx.execute(
              status ->
                  outbox.append(
                      NewEvent.builder("order", "o-9", "OrderPaid")
                          .payload("{\"a\":1}")
                          .aggregateVersion(4)
                          .build()));

      assertThat(
              db.count(
                  "app_events WHERE eid = '"
                      + id
                      + "' AND atype = 'order' AND aid = 'o-9'"
                      + " AND etype = 'OrderPaid' AND body = '{\"a\":1}' AND ver = 4 AND meta IS NULL"))
          .isEqualTo(1);
      assertThat(db.count("outbox_events")).isZero();
    } finally {
      db.execute("DROP TABLE app_events");
    }
  }

  private String ddlFile() {
    return "config/" + (db.isMariaDb() ? "mysql" : "postgresql") + "/outbox-schema.sql";
  }

  @Test
  void failsAtStartupWithOneLineNamingTheDdlWhenTheOutboxTableIsMissing() {
    Throwable failure = catchThrowable(() -> start("outbox.writer.table=no_outbox_here").close());

    assertThat(failure).isNotNull();
    while (!failure.getMessage().startsWith("outbox table check failed")
        && failure.getCause() != null) {
      failure = failure.getCause();
    }
    assertThat(failure.getMessage())
        .startsWith("outbox table check failed: cannot read the outbox table no_outbox_here")
        .contains(ddlFile())
        .doesNotContain("\n");
  }

  @Test
  void failsAtStartupNamingAColumnTheOutboxTableLacks() {
    assertThatThrownBy(() -> start("outbox.writer.columns.event-type=kind").close())
        .rootCause()
        .hasMessageContaining("has no column kind")
        .hasMessageContaining("outbox-schema.sql")
        .hasMessageNotContaining("\n");
  }

  /** A serializer bean of the application, which the starter must use. */
  static class UpperCaseSerializer {
    @org.springframework.context.annotation.Bean
    PayloadSerializer upperCase() {
      return payload ->
          ("\"" + payload.toString().toUpperCase() + "\"").getBytes(StandardCharsets.UTF_8);
    }
  }

  @Test
  void usesThePayloadSerializerBeanOfTheApplication() {
    try (ConfigurableApplicationContext custom =
        start(new Class<?>[] {UpperCaseSerializer.class})) {
      String id = custom.getBean(OrderService.class).place(orderId());

      Object payload =
          db.query("SELECT payload FROM outbox_events WHERE " + db.eventIdIs("event_id", id));
      assertThat(payload.toString()).contains("ORDERPLACED[ORDERID=O-");
    }
  }
}
