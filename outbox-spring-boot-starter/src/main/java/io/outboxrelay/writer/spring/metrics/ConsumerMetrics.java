package io.outboxrelay.writer.spring.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.spring.IdempotentListenerCounters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;
import org.springframework.beans.factory.ObjectProvider;

/**
 * {@code outbox.consumer.events}: what the application's consumers did with the events they were
 * given, read whenever the registry is scraped: the application's {@link IdempotentProcessor} beans
 * (their {@link Counters}) and its {@code @IdempotentListener} listeners ({@link
 * IdempotentListenerCounters}). One counter per consumer group (tag {@code consumer.group}; the
 * processors and listeners of one group are added up) and outcome (tag {@code outcome}): {@code
 * processed}, {@code duplicate}, {@code stale}, {@code conflict} and {@code failed} (each failed
 * attempt, retries included). Binds the processor beans that exist when Spring Boot binds its
 * meters, after every singleton is created, and the listeners' groups whenever their containers are
 * created, before or after that. Thread-safe.
 */
public final class ConsumerMetrics implements MeterBinder {

  /** The meter's name. */
  public static final String EVENTS = "outbox.consumer.events";

  private static final Map<String, ToLongFunction<Counters>> OUTCOMES =
      Map.of(
          "processed", Counters::processed,
          "duplicate", Counters::duplicates,
          "stale", Counters::stale,
          "conflict", Counters::conflicts,
          "failed", Counters::failures);

  private final ObjectProvider<IdempotentProcessor> processors;
  private final IdempotentListenerCounters listeners;

  /** Micrometer holds the counted objects weakly: this binder (a singleton) holds them. */
  private final List<Group> groups = new CopyOnWriteArrayList<>();

  /**
   * Creates the binder of the processor beans only.
   *
   * @param processors the application's processor beans; read when bound
   */
  public ConsumerMetrics(ObjectProvider<IdempotentProcessor> processors) {
    this(processors, null);
  }

  /**
   * Creates the binder of the processor beans and the {@code @IdempotentListener} listeners.
   *
   * @param processors the application's processor beans; read when bound
   * @param listeners the listeners' counts, or {@code null} without spring-kafka
   */
  public ConsumerMetrics(
      ObjectProvider<IdempotentProcessor> processors, IdempotentListenerCounters listeners) {
    this.processors = Objects.requireNonNull(processors, "processors");
    this.listeners = listeners;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Map<String, List<IdempotentProcessor>> byGroup = new TreeMap<>();
    processors
        .orderedStream()
        .forEach(p -> byGroup.computeIfAbsent(p.consumerGroup(), g -> new ArrayList<>()).add(p));
    byGroup.forEach((group, members) -> register(registry, new Group(group, members, listeners)));
    if (listeners != null) {
      // A group that has processor beans too is registered already: Micrometer keeps that
      // meter, which adds the listeners' counts of its group.
      listeners.onConsumerGroup(
          group -> {
            if (!byGroup.containsKey(group)) {
              register(registry, new Group(group, List.of(), listeners));
            }
          });
    }
  }

  private void register(MeterRegistry registry, Group group) {
    groups.add(group);
    OUTCOMES.forEach(
        (outcome, count) ->
            FunctionCounter.builder(EVENTS, group, g -> g.sum(count))
                .description("Events given to the idempotent consumer, by outcome")
                .baseUnit("events")
                .tag("consumer.group", group.name)
                .tag("outcome", outcome)
                .register(registry));
  }

  /** A consumer group's processor beans and listeners. */
  private record Group(
      String name, List<IdempotentProcessor> processors, IdempotentListenerCounters listeners) {

    Group {
      processors = List.copyOf(processors);
    }

    double sum(ToLongFunction<Counters> count) {
      long sum = 0;
      for (IdempotentProcessor processor : processors) {
        sum += count.applyAsLong(processor.counters());
      }
      Counters listened = listeners == null ? null : listeners.counters(name);
      if (listened != null) {
        sum += count.applyAsLong(listened);
      }
      return sum;
    }
  }
}
