package io.outboxrelay.router;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns an {@link OutboxEvent} into the {@link RoutedRecord} to publish.
 *
 * <ul>
 *   <li>topic: the {@link TopicTemplate} rendered with the event's {@code aggregate_type} and
 *       {@code event_type} (default {@code outbox.event.${aggregate_type}});
 *   <li>key: {@code aggregate_id} as UTF-8, so one aggregate's events share a partition and keep
 *       their order;
 *   <li>headers: {@code id} ({@code event_id}), {@code event_type}, {@code aggregate_type}, {@code
 *       aggregate_id}, as UTF-8 text; and {@code aggregate_version} as decimal text when the event
 *       has a version ({@link OutboxEvent#aggregateVersion()}), none otherwise;
 *   <li>value: the payload bytes exactly as stored: no escaping, no re-serialising.
 * </ul>
 *
 * <p>An event whose payload is NULL is not routed: its record would have a null value, which Kafka
 * treats as a tombstone, and on a compacted topic a tombstone deletes every earlier record of the
 * key — the aggregate's history. Such an event is poison ({@link
 * RoutingException.Reason#NULL_PAYLOAD}).
 *
 * <p>Instances are immutable apart from an internal cache of rendered topic names, and are
 * thread-safe.
 */
public final class EventRouter {

  /** Upper bound of cached topic names; the cache is cleared when it would grow beyond it. */
  private static final int TOPIC_CACHE_LIMIT = 10_000;

  private final TopicTemplate topicTemplate;
  private final Map<String, String> topicCache = new ConcurrentHashMap<>();

  private EventRouter(TopicTemplate topicTemplate) {
    this.topicTemplate = topicTemplate;
  }

  /**
   * A router with the default topic template {@value TopicTemplate#DEFAULT}.
   *
   * @return the router
   */
  public static EventRouter withDefaults() {
    return new EventRouter(TopicTemplate.parse(TopicTemplate.DEFAULT));
  }

  /**
   * A router with the given topic template.
   *
   * @param topicTemplate the parsed template
   * @return the router
   */
  public static EventRouter withTopicTemplate(TopicTemplate topicTemplate) {
    return new EventRouter(Objects.requireNonNull(topicTemplate, "topicTemplate"));
  }

  /**
   * Routes one event.
   *
   * @param event the event; never null
   * @return the record to publish
   * @throws RoutingException when the event's values make an illegal topic name, or its payload is
   *     NULL; retrying cannot fix either
   */
  public RoutedRecord route(OutboxEvent event) {
    if (event.payload() == null) {
      throw new RoutingException(
          RoutingException.Reason.NULL_PAYLOAD,
          "payload is NULL: event_id="
              + event.eventId()
              + " (aggregate_type='"
              + event.aggregateType()
              + "', aggregate_id='"
              + event.aggregateId()
              + "') would be published as a tombstone, which deletes the aggregate's history on a"
              + " compacted topic: write a payload (e.g. {}) and make the payload column NOT NULL");
    }
    String topic = topicFor(event.aggregateType(), event.eventType());
    RecordHeader id = RecordHeader.utf8(OutboxHeaders.ID, event.eventId());
    RecordHeader eventType = RecordHeader.utf8(OutboxHeaders.EVENT_TYPE, event.eventType());
    RecordHeader aggregateType =
        RecordHeader.utf8(OutboxHeaders.AGGREGATE_TYPE, event.aggregateType());
    RecordHeader aggregateId = RecordHeader.utf8(OutboxHeaders.AGGREGATE_ID, event.aggregateId());
    Long version = event.aggregateVersion();
    List<RecordHeader> headers =
        version == null
            ? List.of(id, eventType, aggregateType, aggregateId)
            : List.of(
                id,
                eventType,
                aggregateType,
                aggregateId,
                // Decimal text, as the consumer library's version check parses it (Long.parseLong).
                RecordHeader.utf8(OutboxHeaders.AGGREGATE_VERSION, Long.toString(version)));
    return new RoutedRecord(
        topic, event.aggregateId().getBytes(StandardCharsets.UTF_8), headers, event.payload());
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
