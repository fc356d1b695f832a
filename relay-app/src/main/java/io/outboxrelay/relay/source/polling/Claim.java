package io.outboxrelay.relay.source.polling;

import java.util.List;

/**
 * What one claim transaction took.
 *
 * @param token the claim token all claimed rows carry
 * @param events the events to publish, in id order
 * @param expiredToDead ids whose lease expired on their last attempt and that went DEAD
 */
record Claim(String token, List<ClaimedEvent> events, List<Long> expiredToDead) {

  boolean isEmpty() {
    return events.isEmpty();
  }
}
