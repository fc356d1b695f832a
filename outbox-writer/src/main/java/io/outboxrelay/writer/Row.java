package io.outboxrelay.writer;

/**
 * One event as it is written: checked, its id given or made, its payload turned into text, its
 * headers (trace context included) into the headers column's JSON.
 *
 * @param eventId the id
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param eventType the event type
 * @param payload the payload's text
 * @param aggregateVersion the version, or {@code null}
 * @param headersJson the headers column's value, or {@code null} for none
 */
record Row(
    String eventId,
    String aggregateType,
    String aggregateId,
    String eventType,
    String payload,
    Long aggregateVersion,
    String headersJson) {

  /** Roughly how many characters the row adds to a statement: what bounds a statement's size. */
  long size() {
    return 100L
        + aggregateType.length()
        + aggregateId.length()
        + eventType.length()
        + payload.length()
        + (headersJson == null ? 0 : headersJson.length());
  }

  /**
   * The most bytes the row adds to an INSERT sent as text (as MariaDB Connector/J and MySQL
   * Connector/J send client-side prepared statements): each value in UTF-8, quoted, with a
   * backslash before each character the drivers escape. An upper bound for the binary protocol too.
   */
  long packetBytes() {
    return 64L
        + textBytes(eventId)
        + textBytes(aggregateType)
        + textBytes(aggregateId)
        + textBytes(eventType)
        + textBytes(payload)
        + (headersJson == null ? 4 : textBytes(headersJson));
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
