package io.outboxrelay.relay.admin;

import java.time.Instant;

/**
 * One outbox row as the operator commands show it. Immutable.
 *
 * @param id the row id
 * @param eventId the event id
 * @param eventType the event type
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param status PENDING, PROCESSING, PUBLISHED, DEAD or SKIPPED
 * @param attempts claims so far
 * @param createdAt when the application inserted it
 * @param nextAttemptAt when it may be claimed next, or null
 * @param processingUntil when its lease ends or the last one ended, or null
 * @param publishedAt when it was published, or null
 * @param lastError why it last failed (or was skipped), or null
 * @param payload the payload as text, or null when not asked for
 */
public record OutboxRow(
    long id,
    String eventId,
    String eventType,
    String aggregateType,
    String aggregateId,
    String status,
    int attempts,
    Instant createdAt,
    Instant nextAttemptAt,
    Instant processingUntil,
    Instant publishedAt,
    String lastError,
    String payload) {

  /** {@code aggregate_type/aggregate_id}, for tables. */
  String aggregate() {
    return aggregateType + "/" + aggregateId;
  }
}
