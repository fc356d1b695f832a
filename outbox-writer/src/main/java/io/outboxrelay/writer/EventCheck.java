package io.outboxrelay.writer;

import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.OutboxHeaders;
import io.outboxrelay.router.TopicTemplate;
import java.util.List;
import java.util.Map;

/**
 * The rules an event must meet before the writer writes it (see {@link OutboxWriter}): those of the
 * event alone here (the headers column's rules, its reserved names and size bound, are the router's
 * {@link ApplicationHeaders}, which the relay applies when it reads the row), those of the table in
 * {@link TableLayout}, those of the payload in {@link Payloads}. Every refusal is an {@link
 * InvalidEventException} naming the event, the field and the fix.
 */
final class EventCheck {

  /** The literal part of the relay's default topic template, before the aggregate type. */
  static final String DEFAULT_TOPIC_PREFIX =
      TopicTemplate.DEFAULT.substring(
          0, TopicTemplate.DEFAULT.indexOf(TopicTemplate.AGGREGATE_TYPE));

  /** Kafka's longest legal topic name. */
  static final int MAX_TOPIC_LENGTH = TopicTemplate.MAX_TOPIC_LENGTH;

  /** The longest aggregate type that fits the default template. */
  static final int MAX_AGGREGATE_TYPE_LENGTH = MAX_TOPIC_LENGTH - DEFAULT_TOPIC_PREFIX.length();

  private EventCheck() {}

  /** Checks every event of a call against the rules of the event alone. */
  static void checkAll(List<NewEvent> events) {
    int count = events.size();
    for (int i = 0; i < count; i++) {
      NewEvent event = events.get(i);
      if (event == null) {
        throw new NullPointerException("events[" + i + "] is null");
      }
      check(i, count, event);
    }
  }

  private static void check(int i, int count, NewEvent e) {
    required(
        i, count, e, "aggregate_type", e.aggregateType(), "e.g. \"order\" (it picks the topic)");
    String topic = aggregateTypeProblem(e.aggregateType());
    if (topic != null) {
      throw refuse(i, count, e, "aggregate_type", topic);
    }
    required(i, count, e, "aggregate_id", e.aggregateId(), "the Kafka key, e.g. the order's id");
    required(i, count, e, "event_type", e.eventType(), "what happened, e.g. \"OrderPaid\"");
    if (e.eventId() != null && e.eventId().isEmpty()) {
      throw refuse(
          i, count, e, "event_id", "the event id is empty: give an id, or none for a new UUIDv7");
    }
    Long version = e.aggregateVersion();
    if (version != null && version < 1) {
      throw refuse(
          i,
          count,
          e,
          "aggregate_version",
          "aggregate_version is "
              + version
              + ": versions start at 1 with the aggregate's first event and grow by one per event;"
              + " leave the version out for an event without one");
    }
    if (e.payloadForWriting() == null) {
      throw refuse(
          i,
          count,
          e,
          "payload",
          "the payload is null: the relay would publish a tombstone, which deletes the aggregate's"
              + " history on a compacted topic; give \"{}\" for an event without data");
    }
    for (Map.Entry<String, String> header : e.headers().entrySet()) {
      String problem = headerProblem(header.getKey(), header.getValue());
      if (problem != null) {
        throw refuse(i, count, e, "headers", problem);
      }
    }
  }

  /**
   * What makes an aggregate type (not empty) unusable in the relay's default topic template {@value
   * #DEFAULT_TOPIC_PREFIX}{@code ${aggregate_type}}, or {@code null}: Kafka's topic rules, which
   * the router applies to the rendered name and which a test pins against Kafka's own check. The
   * writer cannot know a template the relay was configured with instead; under the default one an
   * illegal name is found only when the relay routes the row, where it stops CDC under {@code
   * fail}.
   *
   * @param aggregateType the aggregate type
   */
  static String aggregateTypeProblem(String aggregateType) {
    if (aggregateType == null || aggregateType.isEmpty()) {
      return null;
    }
    for (int k = 0; k < aggregateType.length(); k++) {
      char c = aggregateType.charAt(k);
      boolean legal =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!legal) {
        return "aggregate_type '"
            + printable(aggregateType)
            + "' has the character "
            + (c < 0x20 || c > 0x7e
                ? String.format("U+%04X", (int) c)
                : "'" + c + "' (U+" + String.format("%04X", (int) c) + ")")
            + " at index "
            + k
            + ", which no Kafka topic may hold, and the relay's default topic is "
            + DEFAULT_TOPIC_PREFIX
            + "<aggregate_type>: use only ASCII letters, digits, '.', '_' and '-'";
      }
    }
    if (aggregateType.length() > MAX_AGGREGATE_TYPE_LENGTH) {
      return "aggregate_type has "
          + aggregateType.length()
          + " characters, more than the "
          + MAX_AGGREGATE_TYPE_LENGTH
          + " that fit in the relay's default topic "
          + DEFAULT_TOPIC_PREFIX
          + "<aggregate_type> (Kafka topic names have at most "
          + MAX_TOPIC_LENGTH
          + "): use a shorter name";
    }
    return null;
  }

  /** The aggregate type for a message: at most 64 characters, control characters escaped. */
  private static String printable(String s) {
    StringBuilder out = new StringBuilder();
    for (int k = 0; k < s.length() && k < 64; k++) {
      char c = s.charAt(k);
      out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return s.length() > 64 ? out + "..." : out.toString();
  }

  private static void required(
      int i, int count, NewEvent e, String field, String value, String example) {
    if (value == null || value.isEmpty()) {
      throw refuse(
          i,
          count,
          e,
          field,
          field + " is " + (value == null ? "null" : "empty") + ": give " + example);
    }
  }

  /**
   * What is wrong with a header, or {@code null} when it meets the rules of the headers column.
   *
   * @param name the name
   * @param value the value
   */
  static String headerProblem(String name, String value) {
    if (name == null || name.isEmpty()) {
      return "a header name is " + (name == null ? "null" : "empty") + ": give every header a name";
    }
    if (ApplicationHeaders.RESERVED.contains(name)) {
      return "header '"
          + name
          + "' has one of the relay's own header names ("
          + String.join(", ", OutboxHeaders.ALL)
          + "): choose another name";
    }
    int nameBytes = ApplicationHeaders.utf8Length(name);
    if (nameBytes < 0) {
      return "a header name has an unpaired surrogate at index "
          + (-nameBytes - 1)
          + ": it is not valid Unicode";
    }
    if (value == null) {
      return "header '" + name + "' has a null value: give a value or leave the header out";
    }
    int valueBytes = ApplicationHeaders.utf8Length(value);
    if (valueBytes < 0) {
      return "the value of header '"
          + name
          + "' has an unpaired surrogate at index "
          + (-valueBytes - 1)
          + ": it is not valid Unicode";
    }
    if (name.indexOf('\u0000') >= 0 || value.indexOf('\u0000') >= 0) {
      return "header '"
          + name.replace("\u0000", "\\u0000")
          + "' has the character U+0000 in its name or value, which PostgreSQL's jsonb cannot"
          + " store: remove it (the writer refuses it on every database alike)";
    }
    if (nameBytes + valueBytes > ApplicationHeaders.MAX_ENTRY_BYTES) {
      return "header '"
          + name
          + "' has "
          + (nameBytes + valueBytes)
          + " bytes of name and value in UTF-8, more than the "
          + ApplicationHeaders.MAX_ENTRY_BYTES
          + " allowed: make it smaller or carry the data in the payload";
    }
    return null;
  }

  /** A refusal of event {@code i} of {@code count}. */
  static InvalidEventException refuse(int i, int count, NewEvent e, String field, String problem) {
    return refuse(i, count, e, field, problem, null);
  }

  /** A refusal of event {@code i} of {@code count}, with its cause. */
  static InvalidEventException refuse(
      int i, int count, NewEvent e, String field, String problem, Throwable cause) {
    String which = count == 1 ? "event " : "event #" + (i + 1) + " of " + count + " (";
    String what = e.aggregateType() + "/" + e.aggregateId() + " " + e.eventType();
    return new InvalidEventException(
        i, field, which + what + (count == 1 ? "" : ")") + ": " + problem, cause);
  }
}
