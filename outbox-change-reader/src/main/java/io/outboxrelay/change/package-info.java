/**
 * The outbox row out of a Debezium change event ({@link io.outboxrelay.change.ChangeRecordReader}):
 * one reader for the relay's CDC mode and the Kafka Connect transform, so that both publish the
 * same records. Depends on the router and Kafka Connect's data API only.
 */
package io.outboxrelay.change;
