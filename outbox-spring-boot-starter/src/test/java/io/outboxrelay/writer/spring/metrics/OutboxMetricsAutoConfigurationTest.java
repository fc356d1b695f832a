package io.outboxrelay.writer.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.spring.IdempotentListenerCounters;
import io.outboxrelay.idempotency.spring.ListenerCounts;
import io.outboxrelay.testsupport.database.SimpleDataSource;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.spring.Outbox;
import io.outboxrelay.writer.spring.OutboxAutoConfiguration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Which meters load, and which Outbox beans are counted; no database is reached. */
class OutboxMetricsAutoConfigurationTest {

  private static DataSource unreachable() {
    return new SimpleDataSource("jdbc:mariadb://127.0.0.1:1/none", "u", "p");
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  OutboxAutoConfiguration.class, OutboxMetricsAutoConfiguration.class))
          .withBean(DataSource.class, OutboxMetricsAutoConfigurationTest::unreachable);

  @Test
  void countsTheStartersOutboxAndBindsTheConsumersMeters() {
    runner.run(
        context -> {
          assertThat(context)
              .hasSingleBean(WriterMetrics.class)
              .hasSingleBean(ConsumerMetrics.class);
          assertThat(context.getBean(Outbox.class)).isInstanceOf(MeteredOutbox.class);
        });
  }

  @Test
  void loadsNothingWithoutMicrometer() {
    runner
        .withClassLoader(new FilteredClassLoader(MeterBinder.class))
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(Outbox.class)
                  .doesNotHaveBean(WriterMetrics.class)
                  .doesNotHaveBean(ConsumerMetrics.class);
              assertThat(context.getBean(Outbox.class)).isNotInstanceOf(MeteredOutbox.class);
            });
  }

  @Test
  void bindsNoConsumerMetersWithoutConsumerIdempotency() {
    runner
        .withClassLoader(new FilteredClassLoader(IdempotentProcessor.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WriterMetrics.class)
                    .doesNotHaveBean(ConsumerMetrics.class));
  }

  /** An Outbox of the application's own, injected by its class. */
  static final class OwnOutbox implements Outbox {
    @Override
    public List<String> appendAll(List<NewEvent> events) {
      return List.of();
    }
  }

  @Test
  void leavesAnOutboxOfTheApplicationsOwnAsItIs() {
    runner
        .withBean(OwnOutbox.class, OwnOutbox::new)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(Outbox.class);
              assertThat(context.getBean(OwnOutbox.class)).isInstanceOf(OwnOutbox.class);
            });
  }

  @Test
  void addsUpTheProcessorsOfAGroupByOutcome() {
    runner
        .withBean(
            "billingOne",
            IdempotentProcessor.class,
            () -> IdempotentProcessor.builder(unreachable(), "billing").build())
        .withBean(
            "billingTwo",
            IdempotentProcessor.class,
            () -> IdempotentProcessor.builder(unreachable(), "billing").build())
        .withBean(
            "shipping",
            IdempotentProcessor.class,
            () -> IdempotentProcessor.builder(unreachable(), "shipping").build())
        .run(
            context -> {
              MeterRegistry registry = new SimpleMeterRegistry();
              context.getBean(ConsumerMetrics.class).bindTo(registry);
              // The database cannot be reached: each attempt is a failure of its processor.
              for (String name : List.of("billingOne", "billingTwo", "shipping", "billingTwo")) {
                try {
                  context.getBean(name, IdempotentProcessor.class).process("e-1", c -> {});
                } catch (RuntimeException expected) {
                  // counted
                }
              }

              assertThat(failed(registry, "billing")).isEqualTo(3);
              assertThat(failed(registry, "shipping")).isEqualTo(1);
              assertThat(
                      registry
                          .get(ConsumerMetrics.EVENTS)
                          .tag("consumer.group", "billing")
                          .functionCounters())
                  .extracting(c -> c.getId().getTag("outcome"))
                  .containsExactlyInAnyOrder(
                      "processed", "duplicate", "stale", "conflict", "failed");
            });
  }

  @Test
  void addsTheListenersOfAGroupToItsProcessorsAndBindsGroupsThatAppearLater() {
    runner
        .withBean(
            "billing",
            IdempotentProcessor.class,
            () -> IdempotentProcessor.builder(unreachable(), "billing").build())
        .withBean(IdempotentListenerCounters.class, IdempotentListenerCounters::new)
        .run(
            context -> {
              IdempotentListenerCounters listeners =
                  context.getBean(IdempotentListenerCounters.class);
              ListenerCounts.count(listeners, "billing", Outcome.PROCESSED);
              ListenerCounts.count(listeners, "before", Outcome.DUPLICATE);
              MeterRegistry registry = new SimpleMeterRegistry();
              context.getBean(ConsumerMetrics.class).bindTo(registry);
              try {
                context.getBean("billing", IdempotentProcessor.class).process("e-1", c -> {});
              } catch (RuntimeException expected) {
                // unreachable database: a failure of the processor bean
              }
              ListenerCounts.count(listeners, "billing", null);
              ListenerCounts.count(listeners, "after", Outcome.STALE);
              ListenerCounts.count(listeners, "after", Outcome.PROCESSED);

              assertThat(count(registry, "billing", "processed")).isEqualTo(1);
              assertThat(count(registry, "billing", "failed")).as("bean and listener").isEqualTo(2);
              assertThat(count(registry, "before", "duplicate")).isEqualTo(1);
              assertThat(count(registry, "after", "stale")).isEqualTo(1);
              assertThat(count(registry, "after", "processed")).isEqualTo(1);
              assertThat(count(registry, "after", "conflict")).isZero();
            });
  }

  private static double count(MeterRegistry registry, String group, String outcome) {
    return registry
        .get(ConsumerMetrics.EVENTS)
        .tag("consumer.group", group)
        .tag("outcome", outcome)
        .functionCounter()
        .count();
  }

  private static double failed(MeterRegistry registry, String group) {
    return registry
        .get(ConsumerMetrics.EVENTS)
        .tag("consumer.group", group)
        .tag("outcome", "failed")
        .functionCounter()
        .count();
  }
}
