package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/**
 * The offset value {@code handoff --to cdc} stores under the relay's own key instead of a position:
 * {@code {"outbox_relay_handoff":"<when>"}}. It tells the relay's next start to publish the rows
 * polling left unpublished ({@link FirstStart}), whatever {@code cdc.first.start} says; that start
 * replaces it with the snapshot's position in the transaction that stores the position, so the
 * instruction applies exactly once. The engine is never started on it. Stateless.
 */
public final class HandoffMarker {

  /** The offset field that makes a stored offset a hand-off marker. */
  public static final String FIELD = "outbox_relay_handoff";

  private static final ObjectMapper JSON = new ObjectMapper();

  private HandoffMarker() {}

  /**
   * The marker's {@code offset_val}.
   *
   * @param when when the hand-off ran (the database's clock), for operators
   * @return the JSON text
   */
  public static String value(String when) {
    try {
      return JSON.writeValueAsString(Map.of(FIELD, when));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // strings always serialise
    }
  }

  /**
   * Whether a stored offset, parsed, is a hand-off marker.
   *
   * @param offset the parsed {@code offset_val}, may be null
   * @return true for the marker
   */
  public static boolean is(JsonNode offset) {
    return offset != null && offset.has(FIELD);
  }

  /**
   * Whether a stored offset, parsed into a map, is a hand-off marker.
   *
   * @param offset the parsed {@code offset_val}, may be null
   * @return true for the marker
   */
  public static boolean is(Map<String, Object> offset) {
    return offset != null && offset.containsKey(FIELD);
  }
}
