package io.outboxrelay.router;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A topic name template such as {@code outbox.event.${aggregate_type}}, parsed once.
 *
 * <p>Known placeholders: {@code ${aggregate_type}} and {@code ${event_type}}. A template is
 * rejected at parse time when it has an unknown or unterminated placeholder, or when its literal
 * text already makes every topic illegal. A rendered name is checked against Kafka's rules (at most
 * 249 characters of {@code a-z A-Z 0-9 . _ -}, not {@code .} or {@code ..}, not one of Kafka's
 * internal topics, which brokers refuse to take records for).
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class TopicTemplate {

  /** Placeholder for the {@code aggregate_type} column. */
  public static final String AGGREGATE_TYPE = "${aggregate_type}";

  /** Placeholder for the {@code event_type} column. */
  public static final String EVENT_TYPE = "${event_type}";

  /** The default template, compatible with Debezium's outbox router. */
  public static final String DEFAULT = "outbox.event." + AGGREGATE_TYPE;

  /** Kafka's longest legal topic name. */
  public static final int MAX_TOPIC_LENGTH = 249;

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]*");

  /**
   * Kafka's internal topics (its {@code Topic.isInternal}): legal names, but a broker refuses
   * records a client sends to them.
   */
  private static final Set<String> INTERNAL_TOPICS =
      Set.of("__consumer_offsets", "__transaction_state", "__share_group_state");

  private enum Part {
    LITERAL,
    AGGREGATE_TYPE,
    EVENT_TYPE
  }

  private record Segment(Part part, String text) {}

  private final String template;
  private final List<Segment> segments;
  private final boolean usesAggregateType;
  private final boolean usesEventType;

  private TopicTemplate(String template, List<Segment> segments) {
    this.template = template;
    this.segments = List.copyOf(segments);
    this.usesAggregateType = segments.stream().anyMatch(s -> s.part() == Part.AGGREGATE_TYPE);
    this.usesEventType = segments.stream().anyMatch(s -> s.part() == Part.EVENT_TYPE);
  }

  /**
   * Parses a template.
   *
   * @param template the template text
   * @return the parsed template
   * @throws IllegalArgumentException with a one-line explanation when the template is not valid
   */
  public static TopicTemplate parse(String template) {
    Objects.requireNonNull(template, "template");
    if (template.isBlank()) {
      throw new IllegalArgumentException("topic template is empty: use e.g. " + DEFAULT);
    }
    List<Segment> segments = new ArrayList<>();
    int literalLength = 0;
    int pos = 0;
    while (pos < template.length()) {
      int start = template.indexOf("${", pos);
      if (start < 0) {
        literalLength += addLiteral(template, segments, template.substring(pos));
        break;
      }
      literalLength += addLiteral(template, segments, template.substring(pos, start));
      int end = template.indexOf('}', start);
      if (end < 0) {
        throw new IllegalArgumentException(
            "topic template '" + template + "' has an unterminated placeholder at " + start);
      }
      String placeholder = template.substring(start, end + 1);
      switch (placeholder) {
        case AGGREGATE_TYPE -> segments.add(new Segment(Part.AGGREGATE_TYPE, placeholder));
        case EVENT_TYPE -> segments.add(new Segment(Part.EVENT_TYPE, placeholder));
        default ->
            throw new IllegalArgumentException(
                "topic template '"
                    + template
                    + "' has unknown placeholder "
                    + placeholder
                    + ": use "
                    + AGGREGATE_TYPE
                    + " or "
                    + EVENT_TYPE);
      }
      pos = end + 1;
    }
    if (literalLength > MAX_TOPIC_LENGTH) {
      throw new IllegalArgumentException(
          "topic template '"
              + template
              + "' is longer than Kafka's limit of "
              + MAX_TOPIC_LENGTH
              + " characters");
    }
    TopicTemplate parsed = new TopicTemplate(template, segments);
    if (!parsed.usesAggregateType && !parsed.usesEventType) {
      String problem = problemWith(template);
      if (problem != null) {
        throw new IllegalArgumentException(
            "topic template '" + template + "' is not a legal Kafka topic name: " + problem);
      }
    }
    return parsed;
  }

  private static int addLiteral(String template, List<Segment> segments, String literal) {
    if (literal.isEmpty()) {
      return 0;
    }
    if (!LEGAL.matcher(literal).matches()) {
      throw new IllegalArgumentException(
          "topic template '"
              + template
              + "' contains characters Kafka does not allow in topic names in '"
              + literal
              + "': use only a-z A-Z 0-9 . _ -");
    }
    segments.add(new Segment(Part.LITERAL, literal));
    return literal.length();
  }

  /**
   * Renders the topic for one event.
   *
   * @param aggregateType the event's aggregate type
   * @param eventType the event's type
   * @return the topic name, guaranteed legal
   * @throws RoutingException when the values make an illegal topic name
   */
  public String render(String aggregateType, String eventType) {
    StringBuilder topic = new StringBuilder(64);
    for (Segment segment : segments) {
      switch (segment.part()) {
        case LITERAL -> topic.append(segment.text());
        case AGGREGATE_TYPE -> topic.append(aggregateType);
        case EVENT_TYPE -> topic.append(eventType);
      }
    }
    String name = topic.toString();
    String problem = problemWith(name);
    if (problem != null) {
      throw new RoutingException(
          RoutingException.Reason.ILLEGAL_TOPIC,
          "topic '"
              + name
              + "' made by template '"
              + template
              + "' from aggregate_type='"
              + aggregateType
              + "', event_type='"
              + eventType
              + "' is not a legal Kafka topic name: "
              + problem);
    }
    return name;
  }

  /**
   * Whether the rendered topic depends on {@code aggregate_type}.
   *
   * @return true when the template has {@code ${aggregate_type}}
   */
  public boolean usesAggregateType() {
    return usesAggregateType;
  }

  /**
   * Whether the rendered topic depends on {@code event_type}.
   *
   * @return true when the template has {@code ${event_type}}
   */
  public boolean usesEventType() {
    return usesEventType;
  }

  /**
   * Checks a topic name against Kafka's rules.
   *
   * @param name the candidate topic name
   * @return {@code null} when legal, otherwise what is wrong
   */
  public static String problemWith(String name) {
    if (name.isEmpty()) {
      return "it is empty";
    }
    if (name.equals(".") || name.equals("..")) {
      return "'.' and '..' are reserved";
    }
    if (name.length() > MAX_TOPIC_LENGTH) {
      return "it is longer than " + MAX_TOPIC_LENGTH + " characters";
    }
    if (!LEGAL.matcher(name).matches()) {
      return "only a-z A-Z 0-9 . _ - are allowed";
    }
    if (INTERNAL_TOPICS.contains(name)) {
      return "it is one of Kafka's internal topics";
    }
    return null;
  }

  @Override
  public String toString() {
    return template;
  }
}
