package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.ValueType;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;

/**
 * The {@code --since} filter: events created within a duration before now (the database's clock),
 * or at or after a point in time. Immutable.
 *
 * @param ago the duration before the database's now, or null
 * @param at the point in time, or null
 */
public record Since(Duration ago, Instant at) {

  /**
   * Parses {@code 2h}, {@code 30m}, {@code 7d} (see the configuration's durations), an ISO-8601
   * time with an offset ({@code 2025-01-31T10:00:00Z}, {@code 2025-01-31T12:00+02:00}), or a local
   * date and time of {@code zone} ({@code 2025-01-31 10:00}, {@code 2025-01-31T10:00:00}, {@code
   * 2025-01-31}).
   *
   * @param text what the operator typed
   * @param zone the zone of a local time (the machine's)
   * @return the filter
   * @throws AdminException (exit 2) when the text is neither
   */
  public static Since parse(String text, ZoneId zone) throws AdminException {
    String t = text.strip();
    if (!t.isEmpty() && Character.isDigit(t.charAt(0)) && !t.contains("-")) {
      try {
        Duration d = ValueType.optionDuration("--since", t);
        if (d.isZero()) {
          throw AdminException.usage("--since " + t + " is empty: give a longer duration");
        }
        return new Since(d, null);
      } catch (IllegalArgumentException e) {
        throw AdminException.usage(
            e.getMessage()
                + " (or give a time such as 2025-01-31T10:00:00Z; omit --since for all)");
      }
    }
    try {
      return new Since(null, OffsetDateTime.parse(t).toInstant());
    } catch (DateTimeParseException e) {
      // not with an offset
    }
    try {
      return new Since(null, LocalDateTime.parse(t.replace(' ', 'T')).atZone(zone).toInstant());
    } catch (DateTimeParseException e) {
      // not a local date and time
    }
    try {
      return new Since(null, LocalDate.parse(t).atStartOfDay(zone).toInstant());
    } catch (DateTimeParseException e) {
      throw AdminException.usage(
          "--since '"
              + t
              + "' is neither a duration (2h, 30m, 7d) nor a time (2025-01-31T10:00:00Z,"
              + " 2025-01-31 10:00 in the local zone, 2025-01-31)");
    }
  }

  /** For messages. */
  @Override
  public String toString() {
    return ago != null
        ? "created in the last " + ValueType.DURATION_TYPE.format(ago)
        : "created since " + at;
  }
}
