package io.outboxrelay.relay.admin;

import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * Which DEAD events a command looks at: by event type, aggregate type, aggregate id and creation
 * time, at most {@code limit} of them, oldest id first. Immutable.
 *
 * @param eventType the {@code event_type}, or null for any
 * @param aggregateType the {@code aggregate_type}, or null for any
 * @param aggregateId the {@code aggregate_id}, or null for any
 * @param since the creation time filter, or null for any
 * @param limit the most events, at least 1
 */
public record DeadFilter(
    String eventType, String aggregateType, String aggregateId, Since since, int limit) {

  /** The largest {@code --limit}. */
  public static final int MAX_LIMIT = 100_000;

  /**
   * Parses the filter options as typed; null means the option was not given.
   *
   * @param eventType {@code --event-type}
   * @param aggregateType {@code --aggregate-type}
   * @param aggregateId {@code --aggregate-id}
   * @param since {@code --since}
   * @param limit {@code --limit}
   * @param defaultLimit the limit when none is given
   * @param zone the zone of a local time in {@code --since}
   * @return the filter
   * @throws AdminException (exit 2) naming the first bad option
   */
  public static DeadFilter parse(
      String eventType,
      String aggregateType,
      String aggregateId,
      String since,
      String limit,
      int defaultLimit,
      ZoneId zone)
      throws AdminException {
    return new DeadFilter(
        text("--event-type", eventType),
        text("--aggregate-type", aggregateType),
        text("--aggregate-id", aggregateId),
        since == null ? null : Since.parse(since, zone),
        limit == null ? defaultLimit : limit(limit));
  }

  /**
   * Whether any criterion is set ({@code limit} is not a criterion).
   *
   * @return true when some events may be left out
   */
  public boolean hasCriteria() {
    return eventType != null || aggregateType != null || aggregateId != null || since != null;
  }

  /** For messages: {@code event_type=OrderPaid, created in the last 2h}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (eventType != null) {
      parts.add("event_type=" + eventType);
    }
    if (aggregateType != null) {
      parts.add("aggregate_type=" + aggregateType);
    }
    if (aggregateId != null) {
      parts.add("aggregate_id=" + aggregateId);
    }
    if (since != null) {
      parts.add(since.toString());
    }
    return parts.isEmpty() ? "all" : String.join(", ", parts);
  }

  private static String text(String option, String value) throws AdminException {
    if (value == null) {
      return null;
    }
    if (value.isBlank()) {
      throw AdminException.usage(option + " is empty: give a value or leave the option out");
    }
    if (value.length() > 255) {
      throw AdminException.usage(option + " is longer than the column (255 characters)");
    }
    return value;
  }

  private static int limit(String text) throws AdminException {
    String t = text.strip();
    try {
      int n = Integer.parseInt(t);
      if (n >= 1 && n <= MAX_LIMIT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw AdminException.usage("--limit '" + t + "' is not a whole number from 1 to " + MAX_LIMIT);
  }
}
