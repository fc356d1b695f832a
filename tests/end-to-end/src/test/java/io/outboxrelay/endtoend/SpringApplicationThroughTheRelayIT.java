package io.outboxrelay.endtoend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.spring.Outbox;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.annotation.Transactional;

/**
 * A real Spring Boot application (auto-configured DataSource, transaction manager and the outbox
 * starter, {@code @Transactional} proxies) through the relay, run from its distribution in CDC
 * mode, to the Kafka broker: a method that throws after appending publishes nothing, one that
 * commits publishes its event once, and a call outside a transaction is refused and publishes
 * nothing.
 */
class SpringApplicationThroughTheRelayIT {

  @TempDir Path work;

  /** The application. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ShopApplication {

    @Bean
    Shop shop(JdbcTemplate jdbc, Outbox outbox) {
      return new Shop(jdbc, outbox);
    }
  }

  /** Its service; not final, so that Spring can proxy its transactions. */
  static class Shop {

    private final JdbcTemplate jdbc;
    private final Outbox outbox;

    Shop(JdbcTemplate jdbc, Outbox outbox) {
      this.jdbc = jdbc;
      this.outbox = outbox;
    }

    /** The order and its event in one transaction; returns the event id. */
    @Transactional
    public String place(String orderId) {
      jdbc.update("INSERT INTO orders (id) VALUES (?)", orderId);
      return outbox.append(
          NewEvent.builder("order", orderId, "OrderPlaced")
              .payload("{\"orderId\":\"" + orderId + "\"}")
              .aggregateVersion(1)
              .build());
    }

    /** Writes the order and its event, then fails: both roll back. */
    @Transactional
    public void placeThenFail(String orderId) {
      place(orderId);
      throw new IllegalStateException("credit limit exceeded");
    }

    /** No transaction at all. */
    public String placeWithoutTransaction(String orderId) {
      return outbox.append(NewEvent.of("order", orderId, "OrderPlaced", "{}"));
    }
  }

  @Test
  void aTransactionalMethodPublishesItsEventOnceWhenItCommitsAndNothingWhenItThrows()
      throws Exception {
    MariaDbServer mariaDb = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = OutboxDatabase.on(mariaDb)) {
      db.admin("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)");
      String user = "shop_" + db.name().substring(Math.max(0, db.name().length() - 12));
      String password = "pw-" + UUID.randomUUID();
      mariaDb.createUser(user, password, "SELECT, INSERT, UPDATE, DELETE ON `" + db.name() + "`.*");
      TestTopics topics =
          TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "spring");
      RelaySettings settings = RelaySettings.cdc(db, topics.bootstrap(), topics.name());
      try (RelayProcess relay =
              RelayProcess.run("relay", work, settings.writeTo(work.resolve("relay.properties")));
          ConfigurableApplicationContext app =
              new SpringApplicationBuilder(ShopApplication.class)
                  .web(WebApplicationType.NONE)
                  .properties(
                      "spring.datasource.url=" + mariaDb.jdbcUrl(db.name()),
                      "spring.datasource.username=" + user,
                      "spring.datasource.password=" + password,
                      "spring.datasource.hikari.maximum-pool-size=2")
                  .run()) {
        Shop shop = app.getBean(Shop.class);
        String failed = "order-failed-" + UUID.randomUUID();
        String refused = "order-refused-" + UUID.randomUUID();
        String placed = "order-placed-" + UUID.randomUUID();

        assertThatThrownBy(() -> shop.placeThenFail(failed)).hasMessage("credit limit exceeded");
        assertThatThrownBy(() -> shop.placeWithoutTransaction(refused))
            .isInstanceOf(IllegalTransactionStateException.class);
        String eventId = shop.place(placed);

        topics
            .reader()
            .readUntil(
                rs -> rs.stream().anyMatch(r -> eventId.equals(r.header("id"))),
                Duration.ofSeconds(90));
        // Published in commit order: the failed call came first. A quiet topic shows nothing
        // else is on its way.
        List<ConsumedRecord> all = topics.reader().readAll(Duration.ofSeconds(3));
        assertThat(all)
            .extracting(ConsumedRecord::keyAsString)
            .as("only the committed order's event, once")
            .containsExactly(placed);
        ConsumedRecord record = all.get(0);
        assertThat(record.header("id")).isEqualTo(eventId);
        assertThat(record.header("event_type")).isEqualTo("OrderPlaced");
        assertThat(record.header("aggregate_version")).isEqualTo("1");
        assertThat(record.valueAsString()).isEqualTo("{\"orderId\":\"" + placed + "\"}");
        assertThat(db.outboxRows()).isEqualTo(1);
        assertThat(relay.process().isAlive()).isTrue();
      } finally {
        mariaDb.execute(null, "DROP USER IF EXISTS '" + user + "'@'127.0.0.1'");
      }
    }
  }
}
