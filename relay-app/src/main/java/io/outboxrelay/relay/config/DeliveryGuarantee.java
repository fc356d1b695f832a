package io.outboxrelay.relay.config;

/**
 * What a consumer may see of the relay's publishing ({@code delivery.guarantee}).
 *
 * <p>Written in properties files in lower case with hyphens: {@code at-least-once}, {@code
 * exactly-once}.
 */
public enum DeliveryGuarantee {
  /**
   * Every committed event is published; after a crash or a failover the events published since the
   * last stored position are published again (consumers deduplicate by event id).
   */
  AT_LEAST_ONCE,
  /**
   * CDC mode only: each batch's records and the binlog position after it are committed in one Kafka
   * transaction, so a consumer reading with {@code isolation.level=read_committed} sees every
   * committed event exactly once, through crashes, failovers and broker restarts.
   */
  EXACTLY_ONCE
}
