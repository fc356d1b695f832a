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
}
