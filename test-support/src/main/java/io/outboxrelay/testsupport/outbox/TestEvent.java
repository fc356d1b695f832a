package io.outboxrelay.testsupport.outbox;

import java.util.UUID;

/**
 * An event a test writes to the outbox, with its expected position in its aggregate's sequence.
 *
 * @param eventId the event id
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param eventType the event type
 * @param sequence position in the aggregate's sequence, from 1
 * @param payload the JSON payload, exactly as written
 */
public record TestEvent(
    String eventId,
    String aggregateType,
    String aggregateId,
    String eventType,
    long sequence,
    String payload) {

  /**
   * An event whose payload exercises byte-exact publishing: spacing, key order, escapes and
   * non-ASCII text must all survive unchanged.
   */
  public static TestEvent of(String aggregateType, String aggregateId, long sequence) {
    String payload =
        "{\"aggregate\": \""
            + aggregateId
            + "\",  \"seq\":"
            + sequence
            + ", \"z\":1,\"a\":\"caf\u00e9 \u2603 \\\"q\\\" \\u00e9\", \"n\": [1, 2.50, true] }";
    return new TestEvent(
        UUID.randomUUID().toString(), aggregateType, aggregateId, "Happened", sequence, payload);
  }
}
