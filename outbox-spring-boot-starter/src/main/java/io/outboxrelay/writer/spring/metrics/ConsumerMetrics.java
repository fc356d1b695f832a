package io.outboxrelay.writer.spring.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.IdempotentProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;
import org.springframework.beans.factory.ObjectProvider;

/**
 * {@code outbox.consumer.events}: what the application's {@link IdempotentProcessor} beans did with
 * the events they were given, read from their {@link Counters} whenever the registry is scraped.
 * One counter per consumer group (tag {@code consumer.group}; processors of one group are added up)
 * and outcome (tag {@code outcome}): {@code processed}, {@code duplicate}, {@code stale}, {@code
 * conflict} and {@code failed} (each failed attempt, retries included). Binds the processor beans
 * that exist when Spring Boot binds its meters, after every singleton is created. Thread-safe.
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
  private final List<List<IdempotentProcessor>> groups = new CopyOnWriteArrayList<>();

  /**
   * Creates the binder.
   *
   * @param processors the application's processor beans; read when bound
   */
  public ConsumerMetrics(ObjectProvider<IdempotentProcessor> processors) {
    this.processors = Objects.requireNonNull(processors, "processors");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Map<String, List<IdempotentProcessor>> byGroup = new TreeMap<>();
    processors
        .orderedStream()
        .forEach(p -> byGroup.computeIfAbsent(p.consumerGroup(), g -> new ArrayList<>()).add(p));
    byGroup.forEach(
        (group, members) -> {
          List<IdempotentProcessor> fixed = List.copyOf(members);
          // Micrometer holds the counted object weakly: this binder (a singleton) holds the list.
          groups.add(fixed);
          OUTCOMES.forEach(
              (outcome, count) ->
                  FunctionCounter.builder(EVENTS, fixed, ps -> sum(ps, count))
                      .description("Events given to the idempotent consumer, by outcome")
                      .baseUnit("events")
                      .tag("consumer.group", group)
                      .tag("outcome", outcome)
                      .register(registry));
        });
  }

  private static double sum(List<IdempotentProcessor> processors, ToLongFunction<Counters> count) {
    long sum = 0;
    for (IdempotentProcessor processor : processors) {
      sum += count.applyAsLong(processor.counters());
    }
    return sum;
  }
}
