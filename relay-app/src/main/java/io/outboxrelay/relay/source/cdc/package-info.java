/**
 * CDC mode: an embedded Debezium engine tails the MySQL/MariaDB binlog for inserts into the outbox
 * table; each batch is routed, published in source order, and its position committed to the source
 * database only after Kafka acknowledged every record of it.
 */
package io.outboxrelay.relay.source.cdc;
