/**
 * The demo: runs the whole loop on the local stack (business transaction, outbox, relay in CDC or
 * polling mode, Kafka, idempotent consumer) and shows what arrives, what the consumer applied, and
 * a redelivered event being ignored.
 */
package io.outboxrelay.examples;
