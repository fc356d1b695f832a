/**
 * The example order service: it changes its orders and writes the matching outbox events in the
 * same database transaction, which is all an application has to do for the relay to publish them.
 */
package io.outboxrelay.examples.orders;
