package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutingException;
import java.time.Instant;

/**
 * An event this worker holds a lease on.
 *
 * @param event the outbox row
 * @param attempt the number of this attempt, counting this claim (1 for the first)
 * @param databaseTime the database's clock when the row was read
 * @param malformed why the row is not an event (a NULL where every event has a value), or {@code
 *     null}: such a row is poison, and {@code event} holds empty text in place of the NULL
 */
record ClaimedEvent(
    OutboxEvent event, int attempt, Instant databaseTime, RoutingException malformed) {

  /** A well-formed event. */
  ClaimedEvent(OutboxEvent event, int attempt, Instant databaseTime) {
    this(event, attempt, databaseTime, null);
  }

  /** The event a claim read. */
  static ClaimedEvent of(RowLayout.Row row) {
    return new ClaimedEvent(row.event(), row.attempt(), row.databaseTime(), row.malformed());
  }
}
