package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Optional;

/**
 * An exactly-once relay's two records of its position: the one committed in Kafka with the records
 * (the progress topic) and the database's row, written after each commit. This decides which one
 * the engine resumes at. Stateless.
 *
 * <p>The relay writes the database's row only after the Kafka transaction it describes committed,
 * so the database's position is never ahead of Kafka's by the relay's own doing, and Kafka's wins.
 * The database's wins when it is later in the same binlog (an at-least-once run after an
 * exactly-once one published past Kafka's position, or an operator imported a later position), and
 * when it is a pending hand-off: then the events up to it were published (by that run, or by
 * polling), and resuming at Kafka's would publish them again.
 */
final class CommittedPosition {

  private static final ObjectMapper JSON = new ObjectMapper();

  private CommittedPosition() {}

  /**
   * An engine's offset as the JSON text the offsets table and the progress topic hold.
   *
   * @param sourceOffset a record's {@code sourceOffset()}
   * @return the JSON text
   */
  static String json(Map<String, ?> sourceOffset) {
    try {
      return JSON.writeValueAsString(sourceOffset);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // strings, numbers and booleans always serialise
    }
  }

  /**
   * Which position to resume at.
   *
   * @param kafka the position committed in the progress topic
   * @param database the database's position text, or null when it has none
   * @return the position to store in the database before the engine starts, or empty to keep the
   *     database's
   */
  static Optional<String> toStore(String kafka, String database) {
    if (database == null) {
      return Optional.of(kafka);
    }
    JsonNode k = parse(kafka);
    JsonNode d = parse(database);
    if (d != null && HandoffMarker.is(d)) {
      return Optional.empty(); // a hand-off to CDC is pending: its first start publishes
    }
    if (d == null || k == null) {
      return k == null ? Optional.empty() : Optional.of(kafka);
    }
    if (normalised(k).equals(normalised(d))) {
      return Optional.empty();
    }
    Integer order = compare(d, k);
    return order != null && order > 0 ? Optional.empty() : Optional.of(kafka);
  }

  /**
   * Compares two positions of one binlog: file, then byte position, then the events and rows of the
   * transaction there already published.
   *
   * @return negative, zero or positive as {@code a} is before, at or after {@code b}; null when
   *     they cannot be compared (other servers or binlog names, or a field missing)
   */
  static Integer compare(JsonNode a, JsonNode b) {
    String fa = a.path("file").asText(null);
    String fb = b.path("file").asText(null);
    if (fa == null || fb == null || !a.has("pos") || !b.has("pos")) {
      return null;
    }
    int dot = fa.lastIndexOf('.');
    if (dot < 0
        || !fa.substring(0, dot).equals(fb.substring(0, Math.max(0, fb.lastIndexOf('.'))))
        || a.path("server_id").asLong(-1) != b.path("server_id").asLong(-1)) {
      return null;
    }
    int c;
    try {
      c =
          Long.compare(
              Long.parseLong(fa.substring(dot + 1)), Long.parseLong(fb.substring(dot + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
    if (c == 0) {
      c = Long.compare(a.path("pos").asLong(), b.path("pos").asLong());
    }
    if (c == 0) {
      c = Long.compare(a.path("event").asLong(0), b.path("event").asLong(0));
    }
    if (c == 0) {
      c = Long.compare(a.path("row").asLong(0), b.path("row").asLong(0));
    }
    return c;
  }

  /** The position without the time it was reached, which differs between equal positions. */
  private static JsonNode normalised(JsonNode n) {
    ObjectNode copy = n.deepCopy();
    copy.remove("ts_sec");
    return copy;
  }

  private static JsonNode parse(String text) {
    try {
      JsonNode n = JSON.readTree(text);
      return n != null && n.isObject() ? n : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
