package io.outboxrelay.idempotency.spring;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.outboxrelay.idempotency.kafka.PoisonRecordException;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.hibernate.Session;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A payments service that consumes payment events with an {@link IdempotentListener}: each event
 * credits an account and stores a payment through Spring Data JPA repositories (Hibernate on the
 * application's HikariCP DataSource, under Spring Boot's JpaTransactionManager). Failed records go
 * through spring-kafka's DefaultErrorHandler ({@value #ATTEMPTS} attempts) to a dead-letter topic;
 * spans go to an in-memory exporter.
 *
 * <p>An event's value is {@code <event id>;<amount>;ok|fail}, its key the account id.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableJpaRepositories(considerNestedRepositories = true)
public class PaymentApplication {

  /** How often a failing record is tried before it is dead-lettered. */
  static final int ATTEMPTS = 3;

  /**
   * The listener.
   *
   * @param accounts the accounts
   * @param payments the payments
   * @param entityManagers the JPA entity manager factory
   * @return the listener
   */
  @Bean
  public PaymentListener paymentListener(
      Accounts accounts, Payments payments, EntityManagerFactory entityManagers) {
    return new PaymentListener(
        accounts, payments, SharedEntityManagerCreator.createSharedEntityManager(entityManagers));
  }

  /**
   * Retries a failed record in place, then publishes it to {@code <topic>-dlt}; a poison record (no
   * valid event id) goes there at once.
   *
   * @param template Spring Boot's KafkaTemplate
   * @return the error handler, which Spring Boot gives the listener container factory
   */
  @Bean
  public DefaultErrorHandler kafkaErrorHandler(KafkaTemplate<?, ?> template) {
    return errorHandler(template);
  }

  /** The error handler of both payments applications. */
  static DefaultErrorHandler errorHandler(KafkaTemplate<?, ?> template) {
    DefaultErrorHandler handler =
        new DefaultErrorHandler(
            new DeadLetterPublishingRecoverer(template), new FixedBackOff(0L, ATTEMPTS - 1));
    handler.addNotRetryableExceptions(PoisonRecordException.class);
    return handler;
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
   * The application's OpenTelemetry, which the idempotent listener finds as a bean.
   *
   * @param spans the exporter
   * @return the SDK
   */
  @Bean
  public OpenTelemetry openTelemetry(InMemorySpanExporter spans) {
    return openTelemetryOf(spans);
  }

  /** An SDK that exports every span to {@code spans}. */
  static OpenTelemetry openTelemetryOf(InMemorySpanExporter spans) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .build();
  }

  /** An account; not final, for Hibernate. */
  @Entity
  @Table(name = "accounts")
  public static class Account {
    @Id private String id;
    private long balance;

    /** For JPA. */
    protected Account() {}

    Account(String id) {
      this.id = id;
    }

    void credit(long amount) {
      balance += amount;
    }
  }

  /** One applied payment event; not final, for Hibernate. */
  @Entity
  @Table(name = "payments")
  public static class Payment {
    @Id private String eventId;
    private String accountId;
    private long amount;

    /** For JPA. */
    protected Payment() {}

    Payment(String eventId, String accountId, long amount) {
      this.eventId = eventId;
      this.accountId = accountId;
      this.amount = amount;
    }
  }

  /** The accounts. */
  public interface Accounts extends JpaRepository<Account, String> {}

  /** The payments. */
  public interface Payments extends JpaRepository<Payment, String> {}

  /**
   * What one call of the listener saw, inside its transaction.
   *
   * @param eventId the event
   * @param paymentBefore whether the event's payment was there before this call wrote it (left by
   *     an earlier attempt that should have been rolled back)
   * @param idRowsSeen the rows of {@code processed_events} for the event that the listener's own
   *     connection (Hibernate's, or JdbcTemplate's) sees: 1 when the id was recorded in this
   *     transaction, on this connection
   */
  public record Call(String eventId, boolean paymentBefore, long idRowsSeen) {}

  /** Credits the account of each payment event once; events marked {@code fail} throw. */
  public static class PaymentListener implements PaymentCalls {
    private final Accounts accounts;
    private final Payments payments;
    private final EntityManager entityManager;

    /** Every call, in order. */
    final List<Call> calls = new CopyOnWriteArrayList<>();

    private final Map<String, Integer> callsPerEvent = new ConcurrentHashMap<>();

    PaymentListener(Accounts accounts, Payments payments, EntityManager entityManager) {
      this.accounts = accounts;
      this.payments = payments;
      this.entityManager = entityManager;
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
      callsPerEvent.merge(eventId, 1, Integer::sum);
      boolean paymentBefore = payments.existsById(eventId);
      Account account = accounts.findById(accountId).orElseGet(() -> new Account(accountId));
      account.credit(Long.parseLong(fields[1]));
      accounts.save(account);
      payments.save(new Payment(eventId, accountId, Long.parseLong(fields[1])));
      entityManager.flush(); // the changes are in the database now, for the rollback to undo
      calls.add(new Call(eventId, paymentBefore, idRowsSeenByJpa(eventId)));
      if (fields[2].equals("fail")) {
        throw new IllegalStateException("payment " + eventId + " refused");
      }
    }

    private long idRowsSeenByJpa(String eventId) {
      return entityManager
          .unwrap(Session.class)
          .doReturningWork(
              connection -> {
                try (PreparedStatement select =
                    connection.prepareStatement(
                        "SELECT COUNT(*) FROM processed_events WHERE event_id = ?")) {
                  select.setString(1, eventId);
                  try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                  }
                }
              });
    }
  }
}
