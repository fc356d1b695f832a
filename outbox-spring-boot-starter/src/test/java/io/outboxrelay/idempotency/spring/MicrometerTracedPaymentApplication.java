package io.outboxrelay.idempotency.spring;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.outboxrelay.idempotency.spring.JdbcPaymentApplication.JdbcPaymentListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * The JDBC payments service of {@link JdbcPaymentApplication} traced with Micrometer Tracing on
 * Brave, as Spring Boot auto-configures it, and without OpenTelemetry: no OpenTelemetry bean (Boot
 * 3.5 would make one, and its log export, from the SDK on the test classpath; those
 * auto-configurations are left out), no {@code spring.kafka.listener.observation-enabled}. Brave's
 * finished spans are kept in {@link FinishedSpans}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    excludeName = {
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
      "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.logging.OpenTelemetryLoggingAutoConfiguration"
    })
public class MicrometerTracedPaymentApplication {

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
   * Brave's finished spans, which Spring Boot's Brave auto-configuration reports to this handler.
   *
   * @return the spans
   */
  @Bean
  public FinishedSpans finishedSpans() {
    return new FinishedSpans();
  }

  /** Keeps every finished span. Thread-safe. */
  public static final class FinishedSpans extends SpanHandler {
    private final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

    @Override
    public boolean end(TraceContext context, MutableSpan span, Cause cause) {
      spans.add(span);
      return true;
    }

    /** The spans finished so far. */
    public List<MutableSpan> spans() {
      return List.copyOf(spans);
    }
  }
}
