package io.outboxrelay.router;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns an {@link OutboxEvent} into the {@link RoutedRecord} to publish.
 *
 * <ul>
 *   <li>topic: the {@link TopicTemplate} rendered with the event's {@code aggregate_type} and
 *       {@code event_type} (default {@code outbox.event.${aggregate_type}});
 *   <li>key: {@code aggregate_id} as UTF-8, so one aggregate's events share a partition and keep
 *       their order;
 *   <li>headers, in this order: the trace headers {@code traceparent} and {@code tracestate} when
 *       the event has a trace context ({@link TraceContext}; where Debezium's router puts them);
 *       the relay's own headers, by default {@code id} ({@code event_id}), {@code event_type},
 *       {@code aggregate_type}, {@code aggregate_id} as UTF-8 text and {@code aggregate_version} as
 *       decimal text when the event has a version ({@link Builder#headers} picks which, in which
 *       order); the placed columns' headers ({@link OutboxEvent#placedHeaders()}); the application
 *       headers ({@link ApplicationHeaders}, which states their contract), in their member order;
 *   <li>value: the payload bytes exactly as stored: no escaping, no re-serialising.
 * </ul>
 *
 * <p>An event whose payload is NULL is not routed: its record would have a null value, which Kafka
 * treats as a tombstone, and on a compacted topic a tombstone deletes every earlier record of the
 * key — the aggregate's history. Such an event is poison ({@link
 * RoutingException.Reason#NULL_PAYLOAD}), as is one whose application headers or trace context
 * break their contract ({@link RoutingException.Reason#INVALID_HEADERS}, {@link
 * RoutingException.Reason#INVALID_TRACE_CONTEXT}).
 *
 * <p>Instances are immutable apart from an internal cache of rendered topic names, and are
 * thread-safe.
 */
public final class EventRouter {

  /** Upper bound of cached topic names; the cache is cleared when it would grow beyond it. */
  private static final int TOPIC_CACHE_LIMIT = 10_000;

  private final TopicTemplate topicTemplate;

  /** The column of each own header, resolved once so that routing compares no names. */
  private final OutboxColumn[] own;

  private final List<String> headerNames;
  private final Map<String, String> topicCache = new ConcurrentHashMap<>();

  private EventRouter(TopicTemplate topicTemplate, List<String> headerNames) {
    this.topicTemplate = topicTemplate;
    this.headerNames = List.copyOf(headerNames);
    this.own = new OutboxColumn[headerNames.size()];
    for (int i = 0; i < own.length; i++) {
      for (OutboxColumn column : OutboxColumn.values()) {
        if (headerNames.get(i).equals(column.header())) {
          own[i] = column;
        }
      }
    }
  }

  /**
   * A router with the default topic template {@value TopicTemplate#DEFAULT} and every own header.
   *
   * @return the router
   */
  public static EventRouter withDefaults() {
    return builder().build();
  }

  /**
   * A router with the given topic template and every own header.
   *
   * @param topicTemplate the parsed template
   * @return the router
   */
  public static EventRouter withTopicTemplate(TopicTemplate topicTemplate) {
    return builder().topicTemplate(topicTemplate).build();
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a builder; not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds an {@link EventRouter}. Not thread-safe. */
  public static final class Builder {

    private TopicTemplate topicTemplate = TopicTemplate.parse(TopicTemplate.DEFAULT);
    private List<String> headers = OutboxHeaders.ALL;

    private Builder() {}

    /**
     * The topic template (default {@value TopicTemplate#DEFAULT}).
     *
     * @param topicTemplate the parsed template; never null
     * @return this builder
     */
    public Builder topicTemplate(TopicTemplate topicTemplate) {
      this.topicTemplate = Objects.requireNonNull(topicTemplate, "topicTemplate");
      return this;
    }

    /**
     * Which of the relay's own headers to publish, in which order (default {@link
     * OutboxHeaders#ALL}). {@code id} must be one: consumers deduplicate on it. {@code
     * aggregate_version} is published only for events that have a version.
     *
     * @param names names from {@link OutboxHeaders#ALL}, each at most once
     * @return this builder
     * @throws IllegalArgumentException when a name is unknown or repeated, or {@code id} is missing
     */
    public Builder headers(List<String> names) {
      String problem = problemWithHeaders(names);
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
      this.headers = List.copyOf(names);
      return this;
    }

    /**
     * Builds the router.
     *
     * @return the router
     */
    public EventRouter build() {
      return new EventRouter(topicTemplate, headers);
    }
  }

  /**
   * Checks a list of the relay's own header names for {@link Builder#headers}.
   *
   * @param names the names
   * @return {@code null} when the list is acceptable, otherwise what is wrong with it
   */
  public static String problemWithHeaders(List<String> names) {
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      if (!OutboxHeaders.ALL.contains(name)) {
        return "'" + name + "' is not one of the relay's headers " + OutboxHeaders.ALL;
      }
      if (!seen.add(name)) {
        return "'" + name + "' is listed twice";
      }
    }
    if (!seen.contains(OutboxHeaders.ID)) {
      return "id is missing: consumers deduplicate on it";
    }
    return null;
  }

  /**
   * Routes one event.
   *
   * @param event the event; never null
   * @return the record to publish
   * @throws RoutingException when the event's values make an illegal topic name, its payload is
   *     NULL, or its application headers or trace context break their contract; retrying cannot fix
   *     any of these. The message names the event and what to change, never a payload or a header
   *     value
   */
  public RoutedRecord route(OutboxEvent event) {
    if (event.payload() == null) {
      throw new RoutingException(
          RoutingException.Reason.NULL_PAYLOAD,
          "payload is NULL: "
              + event.describe()
              + " would be published as a tombstone, which deletes the aggregate's history on a"
              + " compacted topic: write a payload (e.g. {}) and make the payload column NOT NULL");
    }
    String topic = topicFor(event.aggregateType(), event.eventType());
    List<RecordHeader> trace = List.of();
    if (event.traceContext() != null) {
      try {
        trace = TraceContext.headers(event.traceContext());
      } catch (RoutingException e) {
        throw new RoutingException(
            e.reason(),
            "the trace context of "
                + event.describe()
                + " is invalid: "
                + e.getMessage()
                + ": write java.util.Properties text with a W3C traceparent (or NULL)");
      }
    }
    List<RecordHeader> application = List.of();
    if (event.headers() != null) {
      try {
        application = ApplicationHeaders.parse(event.headers());
      } catch (RoutingException e) {
        throw new RoutingException(
            e.reason(),
            "the headers of "
                + event.describe()
                + " are invalid: "
                + e.getMessage()
                + ": write a JSON object of string values whose names are not the relay's own"
                + " (or NULL)");
      }
    }
    List<RecordHeader> headers =
        new ArrayList<>(
            trace.size() + own.length + event.placedHeaders().size() + application.size());
    headers.addAll(trace);
    for (OutboxColumn column : own) {
      Object value = event.value(column);
      if (value != null) {
        // An integer as decimal text, as the consumer library's version check parses it
        // (Long.parseLong); an optional column's NULL publishes no header.
        headers.add(
            RecordHeader.utf8(
                column.header(), value instanceof Long n ? Long.toString(n) : (String) value));
      }
    }
    headers.addAll(event.placedHeaders());
    headers.addAll(application);
    return new RoutedRecord(
        topic, event.aggregateId().getBytes(StandardCharsets.UTF_8), headers, event.payload());
  }

  /**
   * The relay's own headers this router publishes, in order.
   *
   * @return names from {@link OutboxHeaders#ALL}
   */
  public List<String> headers() {
    return headerNames;
  }

  /**
   * The template this router renders topics with.
   *
   * @return the template
   */
  public TopicTemplate topicTemplate() {
    return topicTemplate;
  }

  private String topicFor(String aggregateType, String eventType) {
    String cacheKey = cacheKey(aggregateType, eventType);
    String topic = topicCache.get(cacheKey);
    if (topic == null) {
      topic = topicTemplate.render(aggregateType, eventType);
      if (topicCache.size() >= TOPIC_CACHE_LIMIT) {
        topicCache.clear();
      }
      topicCache.put(cacheKey, topic);
    }
    return topic;
  }

  private String cacheKey(String aggregateType, String eventType) {
    if (topicTemplate.usesEventType() && topicTemplate.usesAggregateType()) {
      return aggregateType + '\u0000' + eventType;
    }
    if (topicTemplate.usesEventType()) {
      return eventType;
    }
    return topicTemplate.usesAggregateType() ? aggregateType : "";
  }
}
