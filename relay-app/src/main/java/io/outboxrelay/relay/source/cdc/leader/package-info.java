/**
 * One active CDC publisher per outbox table: a leadership row in the source database, taken and
 * renewed with the database clock, with an epoch that fences the position commits of a deposed
 * leader; the loop that makes a relay leader or standby; and the monotonic deadline after which a
 * leader that could not renew publishes nothing more.
 */
package io.outboxrelay.relay.source.cdc.leader;
