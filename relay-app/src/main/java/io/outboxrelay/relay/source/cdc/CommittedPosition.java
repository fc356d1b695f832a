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
 * The database's wins when it is later in the same binlog or WAL (an at-least-once run after an
 * exactly-once one published past Kafka's position, or an operator reset or imported a later
 * position), and when it is a pending hand-off: then the events up to it were published (by that
 * run, or by polling), and resuming at Kafka's would publish them again. On PostgreSQL it also wins
 * when it is the marker of a first start that did not finish ({@link PostgresFirstStart}): that
 * start begins again, unless the position in Kafka is the one it committed (it carries the marker's
 * value in {@link #FIRST_START_OF}), so that only the database's write of it was missing.
 */
final class CommittedPosition {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The field of a PostgreSQL first start's position that names the first start (its marker's
   * value) that committed it. Debezium ignores it.
   */
  static final String FIRST_START_OF = "outbox_relay_snapshot_of";

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
    if (d != null && d.has(PostgresFirstStart.MARKER)) {
      // A first start that did not finish: it begins again, unless it committed its position to
      // Kafka before it stopped (then the slot it made is there, and the position is its).
      String marker = d.path(PostgresFirstStart.MARKER).asText("");
      return k != null && !marker.isEmpty() && marker.equals(k.path(FIRST_START_OF).asText(null))
          ? Optional.of(kafka)
          : Optional.empty();
    }
    if (d == null || k == null) {
      return k == null ? Optional.empty() : Optional.of(kafka);
    }
    if (normalised(k).equals(normalised(d))) {
      return Optional.empty();
    }
    Integer order = d.has("lsn") && k.has("lsn") ? comparePostgres(d, k) : compare(d, k);
    return order != null && order > 0 ? Optional.empty() : Optional.of(kafka);
  }

  /**
   * Compares two positions of one PostgreSQL slot, as far as they can be told apart: Debezium
   * streams transactions in commit order, and its {@code lsn_commit} (the commit of the transaction
   * the position is in, or of the last one it finished) only grows along the stream; a position
   * with no {@code lsn_commit} and no {@code txId} lies between transactions at {@code lsn} (a
   * first start's, a reset's), and everything committed before it is behind it. The changes inside
   * a transaction ({@code lsn}, {@code lsn_proc}) may lie before an earlier transaction's commit,
   * so they only order positions inside one transaction.
   *
   * @return positive when {@code a} is certainly after {@code b} (everything {@code b} covers
   *     committed before what {@code a} covers), negative when {@code b} is certainly after {@code
   *     a}; 0 at the same point; null when it cannot be told
   */
  static Integer comparePostgres(JsonNode a, JsonNode b) {
    if (a.has("txId")
        && b.has("txId")
        && a.path("txId").asLong() == b.path("txId").asLong()
        && a.path("lsn_commit").asLong(-1) == b.path("lsn_commit").asLong(-1)) {
      // Inside one transaction (or at its end): the changes come in LSN order.
      return Long.compare(processed(a), processed(b));
    }
    long ca = commitBound(a);
    long cb = commitBound(b);
    if (ca >= 0 && bounded(b) && ca > furthest(b)) {
      return 1;
    }
    if (cb >= 0 && bounded(a) && cb > furthest(a)) {
      return -1;
    }
    return null;
  }

  /**
   * Whether every transaction a position covers ends at or before its {@link #furthest} WAL
   * position: not so for a position inside the first transaction after a start between
   * transactions, whose changes may lie before that start although it commits after it.
   */
  private static boolean bounded(JsonNode n) {
    return n.has("lsn_commit") || !n.has("txId");
  }

  /**
   * The commit a position has reached ({@code lsn_commit}, or {@code lsn} between transactions), or
   * -1 when it does not say.
   */
  private static long commitBound(JsonNode n) {
    if (n.has("lsn_commit")) {
      return n.path("lsn_commit").asLong();
    }
    return n.has("txId") ? -1 : n.path("lsn").asLong();
  }

  /** The furthest WAL position a position names. */
  private static long furthest(JsonNode n) {
    return Math.max(
        n.path("lsn").asLong(0), Math.max(n.path("lsn_commit").asLong(0), processed(n)));
  }

  private static long processed(JsonNode n) {
    return n.has("lsn_proc") ? n.path("lsn_proc").asLong() : n.path("lsn").asLong(0);
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

  /**
   * Whether two position texts name the same point (the time it was reached aside).
   *
   * @param a a position text
   * @param b another
   * @return true when both are positions and the same
   */
  static boolean same(String a, String b) {
    JsonNode x = parse(a);
    JsonNode y = parse(b);
    return x != null && y != null && normalised(x).equals(normalised(y));
  }

  /** The position without the time it was reached, which differs between equal positions. */
  private static JsonNode normalised(JsonNode n) {
    ObjectNode copy = n.deepCopy();
    copy.remove("ts_sec");
    copy.remove("ts_usec");
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
