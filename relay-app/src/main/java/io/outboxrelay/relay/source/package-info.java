/**
 * What both sources share at start: one start sequence ({@link
 * io.outboxrelay.relay.source.StartSequence}), how the relay's connection to the source database
 * failed, the types of the outbox columns the router reads, and traces of a relay of the other mode
 * on the same table.
 */
package io.outboxrelay.relay.source;
