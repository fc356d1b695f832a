package io.outboxrelay.idempotency.spring;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.outboxrelay.idempotency.spring.PaymentApplication.Call;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;

/**
 * The payments service of {@link PaymentApplication} on JDBC alone: its {@link IdempotentListener}
 * credits accounts and stores payments with {@code JdbcTemplate} on the application's HikariCP
 * DataSource, under the transaction manager Spring Boot makes for it ({@code
 * JdbcTransactionManager}); JPA, on the test classpath for other applications, is left out (Boot
 * 4's and Boot 3's auto-configuration of it). The same error handler and tracing.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    excludeName = {
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
      "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration"
    })
public class JdbcPaymentApplication {

  /**
   * The listener.
   *
   * @param jdbc Spring Boot's JdbcTemplate
   * @return the listener
   */
  @Bean
  public JdbcPaymentListener paymentListener(JdbcTemplate jdbc) {
    return new JdbcPaymentListener(jdbc);
  }

  /**
   * As {@link PaymentApplication#kafkaErrorHandler}.
   *
   * @param template Spring Boot's KafkaTemplate
   * @return the error handler
   */
  @Bean
  public DefaultErrorHandler kafkaErrorHandler(KafkaTemplate<?, ?> template) {
    return PaymentApplication.errorHandler(template);
  }

  /**
   * Where the spans end up.
   *
   * @return the exporter
   */
  @Bean
  public InMemorySpanExporter spans() {
    return InMemorySpanExporter.create();
  }

  /**
   * The application's OpenTelemetry.
   *
   * @param spans the exporter
   * @return the SDK
   */
  @Bean
  public OpenTelemetry openTelemetry(InMemorySpanExporter spans) {
    return PaymentApplication.openTelemetryOf(spans);
  }

  /** Credits the account of each payment event once with JDBC; events marked {@code fail} throw. */
  public static class JdbcPaymentListener implements PaymentCalls {
    private final JdbcTemplate jdbc;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> callsPerEvent = new ConcurrentHashMap<>();

    JdbcPaymentListener(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Override
    public List<Call> calls() {
      return calls;
    }

    @Override
    public int calls(String eventId) {
      return callsPerEvent.getOrDefault(eventId, 0);
    }

    /**
     * Applies a payment event.
     *
     * @param value {@code <event id>;<amount>;ok|fail}
     * @param accountId the record key
     */
    @KafkaListener(id = "payments", topics = "${test.topic}", groupId = "${test.group}")
    @IdempotentListener
    public void on(@Payload String value, @Header(KafkaHeaders.RECEIVED_KEY) String accountId) {
      String[] fields = value.split(";");
      String eventId = fields[0];
      long amount = Long.parseLong(fields[1]);
      callsPerEvent.merge(eventId, 1, Integer::sum);
      // JdbcTemplate runs on the connection the transaction bound, as the event id's INSERT did.
      boolean paymentBefore = count("payments", "event_id", eventId) > 0;
      if (jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, accountId)
          == 0) {
        jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, ?)", accountId, amount);
      }
      jdbc.update(
          "INSERT INTO payments (event_id, account_id, amount) VALUES (?, ?, ?)",
          eventId,
          accountId,
          amount);
      calls.add(new Call(eventId, paymentBefore, count("processed_events", "event_id", eventId)));
      if (fields[2].equals("fail")) {
        throw new IllegalStateException("payment " + eventId + " refused");
      }
    }

    private long count(String table, String column, String value) {
      return jdbc.queryForObject(
          "SELECT COUNT(*) FROM " + table + " WHERE " + column + " = ?", Long.class, value);
    }
  }
}
