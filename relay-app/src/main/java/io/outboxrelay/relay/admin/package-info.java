/**
 * Operator commands over a relay's database, behind {@code outbox-relay status}, {@code dead ...}
 * and {@code position ...}: read the pending and DEAD events and the stored CDC position, requeue
 * or skip DEAD events, and move a CDC position past a purged binlog. They use the relay's own
 * configuration and database user, the polling dialects and the same fencing as the relay (a
 * conditional update of rows in one state, in one short transaction), so they are safe while relays
 * run. A bad argument changes nothing and ends with one line and exit code 2.
 */
package io.outboxrelay.relay.admin;
