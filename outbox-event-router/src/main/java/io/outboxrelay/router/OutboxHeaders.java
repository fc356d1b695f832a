package io.outboxrelay.router;

import java.util.ArrayList;
import java.util.List;

/**
 * Names of the relay's own headers: by default every record has the first four, records of
 * versioned events also {@link #AGGREGATE_VERSION} ({@link #ALL}, in that order; {@link
 * EventRouter.Builder#headers} publishes a subset). {@link #ID} matches Debezium's outbox router,
 * so consumers written for Debezium deduplicate on the same header. These names are also the ones
 * an application header may not have ({@link ApplicationHeaders#RESERVED}).
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

  /**
   * The version the event brings its aggregate to (the optional {@code aggregate_version} column),
   * as decimal text ({@code 7}, {@code -1}): what the consumer library's per-aggregate version
   * check reads. Only on records of events that have a version.
   */
  public static final String AGGREGATE_VERSION = "aggregate_version";

  /**
   * Every one of the relay's own headers, in the order the router puts them on a record: the four
   * every record has, then those of the optional columns ({@link OutboxColumn#header()}).
   */
  public static final List<String> ALL = all();

  private static List<String> all() {
    List<String> all = new ArrayList<>(List.of(ID, EVENT_TYPE, AGGREGATE_TYPE, AGGREGATE_ID));
    for (OutboxColumn column : OutboxColumn.optionalColumns()) {
      if (column.header() != null) {
        all.add(column.header());
      }
    }
    return List.copyOf(all);
  }

  private OutboxHeaders() {}
}
