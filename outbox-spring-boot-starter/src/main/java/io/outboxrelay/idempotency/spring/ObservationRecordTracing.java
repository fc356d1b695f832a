package io.outboxrelay.idempotency.spring;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.kafka.RecordEvents;
import io.outboxrelay.idempotency.kafka.RecordTracing;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The tracing of an {@link IdempotentListener} in an application on Micrometer Tracing: the
 * consumer span is spring-kafka's own observation of the listener's record, which the container
 * opens around the listener (and so around this advice) with the record's {@code traceparent} as
 * its parent; this adds the event id ({@value #MESSAGE_ID}) and the outcome ({@value #OUTCOME}) to
 * it, as the OpenTelemetry span has them. High-cardinality key values: on the span only, never a
 * meter's tag (the listener timers of other listeners have no such tag, and Prometheus refuses one
 * name with different tag keys). Exceptions pass through unchanged; the observation records them.
 * Thread-safe.
 */
final class ObservationRecordTracing implements RecordTracing {

  static final String OUTCOME = "outbox_relay.outcome";
  static final String MESSAGE_ID = "messaging.message.id";

  private final ObservationRegistry registry;
  private final RecordEvents events;

  ObservationRecordTracing(ObservationRegistry registry, RecordEvents events) {
    this.registry = registry;
    this.events = events;
  }

  @Override
  public Outcome process(ConsumerRecord<?, ?> record, Supplier<Outcome> processing) {
    Observation observation = registry.getCurrentObservation();
    String eventId = events.eventIdOrNull(record);
    if (observation != null && eventId != null) {
      observation.highCardinalityKeyValue(MESSAGE_ID, eventId);
    }
    Outcome outcome = processing.get();
    if (observation != null) {
      observation.highCardinalityKeyValue(OUTCOME, outcome.name());
    }
    return outcome;
  }
}
