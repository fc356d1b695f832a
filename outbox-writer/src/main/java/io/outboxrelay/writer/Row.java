package io.outboxrelay.writer;

import io.outboxrelay.router.OutboxColumn;

/**
 * One event as it is written: checked, its id given or made, its payload turned into text, its
 * headers (trace context included) into the headers column's JSON.
 *
 * @param values the value of each column by {@link OutboxColumn} ordinal, as {@link
 *     TableLayout#bind} writes it: the id, the texts, the payload's text, the version ({@code
 *     Long}) and the headers column's JSON, or {@code null} for none; not copied
 */
record Row(Object[] values) {

  /** The event's id. */
  String eventId() {
    return (String) values[OutboxColumn.EVENT_ID.ordinal()];
  }

  /** The payload's text. */
  String payload() {
    return (String) values[OutboxColumn.PAYLOAD.ordinal()];
  }

  /** Roughly how many characters the row adds to a statement: what bounds a statement's size. */
  long size() {
    long size = 100L;
    for (OutboxColumn c : OutboxColumn.values()) {
      if (c != OutboxColumn.EVENT_ID && values[c.ordinal()] instanceof String text) {
        size += text.length();
      }
    }
    return size;
  }

  /**
   * The most bytes the row adds to an INSERT sent as text (as MariaDB Connector/J and MySQL
   * Connector/J send client-side prepared statements): each text value in UTF-8, quoted, with a
   * backslash before each character the drivers escape (4 for a NULL text); numbers are within the
   * row's fixed 64 bytes. An upper bound for the binary protocol too.
   */
  long packetBytes() {
    long bytes = 64L;
    for (OutboxColumn c : OutboxColumn.values()) {
      Object value = values[c.ordinal()];
      if (value instanceof String text) {
        bytes += textBytes(text);
      } else if (value == null && c.kind() != OutboxColumn.Kind.INTEGER && c.written()) {
        bytes += 4;
      }
    }
    return bytes;
  }

  private static long textBytes(String value) {
    long bytes = 4;
    int length = value.length();
    for (int k = 0; k < length; k++) {
      char c = value.charAt(k);
      if (c < 0x80) {
        bytes +=
            c == '\\' || c == '\'' || c == '"' || c == 0 || c == '\n' || c == '\r' || c == 0x1a
                ? 2
                : 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        k++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
