package io.outboxrelay.relay.admin;

import java.util.regex.Pattern;

/**
 * How an operator names one outbox event: its row {@code id} (a positive whole number) or its
 * {@code event_id} (anything else, usually a UUID). Immutable.
 *
 * @param id the row id, or null when {@code eventId} is given
 * @param eventId the event id, or null when {@code id} is given
 */
public record EventRef(Long id, String eventId) {

  private static final Pattern WHOLE = Pattern.compile("[+-]?\\d+");

  /**
   * Parses what the operator typed.
   *
   * @param text an id or an event id
   * @return the reference
   * @throws AdminException (exit 2) when the text can be neither
   */
  public static EventRef parse(String text) throws AdminException {
    String t = text == null ? "" : text.strip();
    if (t.isEmpty()) {
      throw AdminException.usage(
          "an empty event reference: give a row id (e.g. 42) or an event id");
    }
    if (WHOLE.matcher(t).matches()) {
      try {
        long id = Long.parseLong(t);
        if (id > 0) {
          return new EventRef(id, null);
        }
      } catch (NumberFormatException e) {
        // too long for a long: no such row
      }
      throw AdminException.usage(
          "'" + t + "' is not a row id: ids are whole numbers from 1 to " + Long.MAX_VALUE);
    }
    if (t.length() > 255 || t.chars().anyMatch(Character::isWhitespace)) {
      throw AdminException.usage(
          "'" + abbreviate(t) + "' is neither a row id (e.g. 42) nor an event id (e.g. a UUID)");
    }
    return new EventRef(null, t);
  }

  /** For messages: {@code id 42} or {@code event id 3f2c...}. */
  @Override
  public String toString() {
    return id != null ? "id " + id : "event id " + eventId;
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
