/**
 * The outbox router as a Kafka Connect Single Message Transform: {@link
 * io.outboxrelay.connect.OutboxRouterTransform} turns the change events Debezium's MariaDB and
 * MySQL connectors emit for the outbox table into the records the relay publishes for the same
 * rows, byte for byte (topic, key, headers, value), by calling the same {@link
 * io.outboxrelay.router.EventRouter}. Updates and deletes of outbox rows publish nothing, as in the
 * relay's CDC mode. Packaged as a Connect plugin directory ({@code *-plugin.zip}) that {@code
 * plugin.discovery=service_load} finds.
 */
package io.outboxrelay.connect;
