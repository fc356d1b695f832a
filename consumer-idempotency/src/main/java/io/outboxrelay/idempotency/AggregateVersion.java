package io.outboxrelay.idempotency;

import java.util.Objects;

/**
 * The version of an aggregate an event brings it to, for the optional per-aggregate version check.
 * Immutable and thread-safe.
 *
 * @param aggregateType e.g. {@code order}; not blank, at most 255 characters
 * @param aggregateId e.g. the order id; not blank, at most 255 characters
 * @param version the version; versions of one aggregate increase by one per event
 */
public record AggregateVersion(String aggregateType, String aggregateId, long version) {

  /**
   * Validates the components.
   *
   * @param aggregateType see {@link AggregateVersion}
   * @param aggregateId see {@link AggregateVersion}
   * @param version see {@link AggregateVersion}
   * @throws NullPointerException if a name is {@code null}
   * @throws IllegalArgumentException if a name is blank or longer than 255 characters
   */
  public AggregateVersion {
    KeyValues.require(Objects.requireNonNull(aggregateType, "aggregateType"), "type");
    KeyValues.require(Objects.requireNonNull(aggregateId, "aggregateId"), "id");
  }
}
