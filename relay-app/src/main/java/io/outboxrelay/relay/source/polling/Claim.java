package io.outboxrelay.relay.source.polling;

import java.time.Instant;
import java.util.List;

/**
 * What one claim transaction took.
 *
 * @param token the claim token all claimed rows carry
 * @param events the events to publish, in id order
 * @param expiredToDead ids whose lease expired on their last attempt and that went DEAD
 * @param takenOver how many of the events were taken over from a claim whose lease had expired
 * @param databaseTime the database's clock at the claim; the Kafka timestamp of the records, so a
 *     worker whose own clock is off cannot produce timestamps the broker refuses
 */
record Claim(
    String token,
    List<ClaimedEvent> events,
    List<Long> expiredToDead,
    int takenOver,
    Instant databaseTime) {

  boolean isEmpty() {
    return events.isEmpty();
  }
}
