package io.outboxrelay.examples.spring.notifications;

import io.outboxrelay.examples.spring.InMemoryTracing;
import io.outboxrelay.idempotency.kafka.PoisonRecordException;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The notification service: {@link OrderEventsListener}, an
 * {@code @IdempotentListener @KafkaListener}, applies each order event once to its own database
 * with Spring Data JPA. Its own tables come from its Flyway ({@code db/notifications}), {@code
 * processed_events} from the starter's shipped migrations. A record that fails is tried {@value
 * #ATTEMPTS} times, each in a transaction rolled back with its {@code processed_events} row, then
 * goes to {@code <topic>-dlt}. Its consumer spans continue the order service's traces.
 */
@SpringBootApplication
@EnableJpaRepositories
@Import(InMemoryTracing.class)
public class NotificationServiceApplication {

  /** How often a failing record is tried before it is dead-lettered. */
  public static final int ATTEMPTS = 3;

  /**
   * Retries a failed record in place, then publishes it to {@code <topic>-dlt}; a record without a
   * valid event id goes there at once.
   *
   * @param template Spring Boot's KafkaTemplate
   * @return the error handler, which Spring Boot gives the listener container factory
   */
  @Bean
  public DefaultErrorHandler kafkaErrorHandler(KafkaTemplate<?, ?> template) {
    DefaultErrorHandler handler =
        new DefaultErrorHandler(
            new DeadLetterPublishingRecoverer(template), new FixedBackOff(100L, ATTEMPTS - 1));
    handler.addNotRetryableExceptions(PoisonRecordException.class);
    return handler;
  }
}
