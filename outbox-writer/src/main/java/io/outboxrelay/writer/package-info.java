/**
 * Writes outbox events on the application's own JDBC connection, inside its transaction, so that an
 * event commits exactly when the business change it describes commits: {@link
 * io.outboxrelay.writer.OutboxWriter} appends {@link io.outboxrelay.writer.NewEvent}s as rows of
 * the outbox table that the relay publishes to Kafka. It gives each event a UUIDv7 id, turns
 * payload objects into bytes with a {@link io.outboxrelay.writer.PayloadSerializer}, writes
 * application headers (and the W3C trace context, when OpenTelemetry is present) into the headers
 * column, and refuses anything the relay would not publish before it writes a row. It needs nothing
 * but the JDK at runtime.
 */
package io.outboxrelay.writer;
