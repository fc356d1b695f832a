/**
 * Routing of outbox events to Kafka records: an {@link io.outboxrelay.router.OutboxEvent} (one row
 * of the outbox table) goes in, a {@link io.outboxrelay.router.RoutedRecord} (topic, key, headers,
 * value) comes out. Pure Java with no Debezium, JDBC or Kafka client dependency, so the CDC and the
 * polling paths of the relay and the Kafka Connect transform share one router and it can be tested
 * in milliseconds. It also holds what every path reads the same way: which columns hold what
 * ({@link io.outboxrelay.router.ColumnMapping}), the application headers column's contract and
 * parser ({@link io.outboxrelay.router.ApplicationHeaders}) and the trace context column's ({@link
 * io.outboxrelay.router.TraceContext}).
 *
 * <p>The defaults are compatible with Debezium's outbox {@code EventRouter}: topic {@code
 * outbox.event.${aggregate_type}}, key = {@code aggregate_id}, header {@code id} = {@code
 * event_id}. The payload is published as its raw bytes, never re-serialised.
 */
package io.outboxrelay.router;
