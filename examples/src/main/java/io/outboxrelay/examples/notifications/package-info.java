/**
 * The example notification service: a consumer of the order service's events with its own database.
 * It keeps a read model of its customers' orders and records a notification when an order is paid,
 * through {@link io.outboxrelay.idempotency.kafka.IdempotentConsumer}, so an event the relay
 * delivers twice changes its tables once.
 */
package io.outboxrelay.examples.notifications;
