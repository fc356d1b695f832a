/**
 * Routing of outbox events to Kafka records: an {@link io.outboxrelay.router.OutboxEvent} (one row
 * of the outbox table) goes in, a {@link io.outboxrelay.router.RoutedRecord} (topic, key, headers,
 * value) comes out. Pure Java with no Debezium, JDBC or Kafka client dependency, so the CDC and the
 * polling paths of the relay and the Kafka Connect transform share one router and it can be tested
 * in milliseconds.
 *
 * <p>It is also the one home of the outbox contract, which the writer, the Spring starter, the
 * change reader, the Kafka Connect transform, the relay and the consumer library all use rather
 * than restate: which columns hold what and their default names ({@link
 * io.outboxrelay.router.ColumnMapping}), the relay's own header names ({@link
 * io.outboxrelay.router.OutboxHeaders}), the application headers column's rules, size bound, JSON
 * encoding and parser ({@link io.outboxrelay.router.ApplicationHeaders}), the W3C trace context
 * format ({@link io.outboxrelay.router.TraceContext}), which database product speaks which SQL
 * dialect ({@link io.outboxrelay.router.Dialect}) and which table and column names may reach SQL
 * text ({@link io.outboxrelay.router.Identifiers}). The module needs nothing but the JDK, so every
 * one of them may depend on it.
 *
 * <p>The defaults are compatible with Debezium's outbox {@code EventRouter}: topic {@code
 * outbox.event.${aggregate_type}}, key = {@code aggregate_id}, header {@code id} = {@code
 * event_id}. The payload is published as its raw bytes, never re-serialised.
 */
package io.outboxrelay.router;
