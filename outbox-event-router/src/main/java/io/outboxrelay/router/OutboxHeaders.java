package io.outboxrelay.router;

/**
 * Names of the headers the router puts on every record. {@link #ID} matches Debezium's outbox
 * router, so consumers written for Debezium deduplicate on the same header.
 */
public final class OutboxHeaders {

  /** The event id ({@code event_id} column); consumers deduplicate on it. */
  public static final String ID = "id";

  /** The event type ({@code event_type} column). */
  public static final String EVENT_TYPE = "event_type";

  /** The aggregate type ({@code aggregate_type} column). */
  public static final String AGGREGATE_TYPE = "aggregate_type";

  /** The aggregate id ({@code aggregate_id} column), also the record key. */
  public static final String AGGREGATE_ID = "aggregate_id";

  private OutboxHeaders() {}
}
