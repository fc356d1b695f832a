package io.outboxrelay.writer.spring.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.outboxrelay.writer.NewEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code outbox.writer.events.appended}: the events appended through the starter's {@code Outbox}
 * whose transaction committed, one counter per aggregate type and event type (the types are the
 * application's constants, so the tags stay few). Events of a transaction that rolled back are not
 * counted. Counters appear at the first commit of their types. Thread-safe.
 */
public final class WriterMetrics implements MeterBinder {

  /** The meter's name. */
  public static final String APPENDED = "outbox.writer.events.appended";

  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

  /** Creates the binder; the auto-configuration does. */
  public WriterMetrics() {}

  @Override
  public void bindTo(MeterRegistry registry) {
    registries.add(registry);
  }

  /**
   * Counts events once the transaction in progress commits. Called right after they were written,
   * so in a transaction with an active synchronisation (the outbox refuses every other case).
   */
  void appended(List<NewEvent> events) {
    if (registries.isEmpty()
        || events.isEmpty()
        || !TransactionSynchronizationManager.isSynchronizationActive()) {
      return;
    }
    Map<Types, Integer> counts = new HashMap<>();
    for (NewEvent event : events) {
      counts.merge(new Types(event.aggregateType(), event.eventType()), 1, Integer::sum);
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            counts.forEach(WriterMetrics.this::increment);
          }
        });
  }

  private void increment(Types types, int count) {
    for (MeterRegistry registry : registries) {
      Counter.builder(APPENDED)
          .description("Events appended to the outbox table in transactions that committed")
          .baseUnit("events")
          .tag("aggregate.type", types.aggregateType())
          .tag("event.type", types.eventType())
          .register(registry)
          .increment(count);
    }
  }

  private record Types(String aggregateType, String eventType) {}
}
