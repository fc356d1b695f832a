package io.outboxrelay.relay.source.cdc.leader;

import java.time.Duration;

/**
 * The leadership of one outbox table as read from the database. Immutable.
 *
 * @param resource what the leadership is for: {@code database.table} of the outbox table
 * @param holder the process holding it (unique per process)
 * @param relayName the holder's {@code relay.name}
 * @param epoch the fencing token: raised by one on every change of holder or term
 * @param remaining time left until it expires, by the database clock; zero or negative once expired
 */
public record LeadershipRow(
    String resource, String holder, String relayName, long epoch, Duration remaining) {

  /**
   * Whether {@code candidate} holds this lease.
   *
   * @param candidate a holder id
   * @return true when it is the holder
   */
  public boolean heldBy(String candidate) {
    return holder.equals(candidate);
  }
}
