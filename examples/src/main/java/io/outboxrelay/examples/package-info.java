/**
 * The demo: runs the whole loop on the local stack (business transaction, outbox, relay, Kafka) and
 * shows what arrives.
 */
package io.outboxrelay.examples;
