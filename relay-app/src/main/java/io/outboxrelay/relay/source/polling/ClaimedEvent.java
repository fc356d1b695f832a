package io.outboxrelay.relay.source.polling;

import io.outboxrelay.router.OutboxEvent;

/**
 * An event this worker holds a lease on.
 *
 * @param event the outbox row
 * @param attempt the number of this attempt, counting this claim (1 for the first)
 * @param databaseTime the database's clock when the row was read
 */
record ClaimedEvent(OutboxEvent event, int attempt, java.time.Instant databaseTime) {}
