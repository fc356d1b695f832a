package io.outboxrelay.idempotency;

import java.util.Objects;

/**
 * What the processor needs to know about one delivered event: its id and, for the optional version
 * check, its aggregate version. Immutable and thread-safe.
 *
 * @param eventId the event's unique id (the outbox {@code event_id}, Kafka header {@code id}); not
 *     blank, at most 255 characters, no trailing space
 * @param aggregateVersion the aggregate version the event brings its aggregate to, or {@code null}
 *     if the event carries none (no version check for it)
 */
public record EventRef(String eventId, AggregateVersion aggregateVersion) {

  /**
   * Validates the event id.
   *
   * @param eventId see {@link EventRef}
   * @param aggregateVersion see {@link EventRef}
   * @throws NullPointerException if {@code eventId} is {@code null}
   * @throws IllegalArgumentException if {@code eventId} is blank, longer than 255 characters or
   *     ends with a space (MariaDB's and MySQL's PAD SPACE collations would compare it equal to the
   *     id without the space)
   */
  public EventRef {
    Identifiers.requireKeyValue(Objects.requireNonNull(eventId, "eventId"), "event id");
  }

  /**
   * An event without an aggregate version.
   *
   * @param eventId see {@link EventRef}
   * @return the reference
   * @throws IllegalArgumentException see {@link EventRef}
   */
  public static EventRef of(String eventId) {
    return new EventRef(eventId, null);
  }

  /**
   * An event with an aggregate version.
   *
   * @param eventId see {@link EventRef}
   * @param aggregateType see {@link AggregateVersion}
   * @param aggregateId see {@link AggregateVersion}
   * @param version see {@link AggregateVersion}
   * @return the reference
   * @throws IllegalArgumentException see {@link EventRef} and {@link AggregateVersion}
   */
  public static EventRef of(
      String eventId, String aggregateType, String aggregateId, long version) {
    return new EventRef(eventId, new AggregateVersion(aggregateType, aggregateId, version));
  }
}
