package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.router.RoutingException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * What an operator can do about an event CDC mode cannot publish, by the kind of failure: only a
 * size problem is answered with a size setting, only a topic problem with the topic template.
 * Stateless.
 */
final class PoisonHint {

  private static final String OR_SKIP = "; or set cdc.poison.action=skip to skip such events";

  private PoisonHint() {}

  /**
   * One sentence naming the fix.
   *
   * @param error why the event cannot be published
   * @param beforeSending whether the relay found it before sending (routing, the producer's size
   *     limit), rather than Kafka refusing it
   * @return the sentence, without a final full stop
   */
  static String whatToDo(Throwable error, boolean beforeSending) {
    RoutingException routing = find(error, RoutingException.class);
    if (routing != null) {
      return switch (routing.reason()) {
        case ILLEGAL_TOPIC ->
            "Change router.topic.template, or the aggregate_type/event_type values it is made"
                + " from, so that the topic name is legal, and restart"
                + OR_SKIP;
        case NULL_PAYLOAD ->
            "An event with a NULL payload is never published (its record would be a tombstone):"
                + " set cdc.poison.action=skip to skip such events, and make the payload column"
                + " NOT NULL";
        case MALFORMED_ROW -> "Fix the outbox table as the reason says and restart" + OR_SKIP;
        case INVALID_HEADERS ->
            "The relay cannot publish this row's application headers (the headers column must be"
                + " NULL or a JSON object of string values, see README: Application headers); set"
                + " cdc.poison.action=skip to skip such events, fix the application that writes"
                + " them, and restart";
        case INVALID_TRACE_CONTEXT ->
            "The relay cannot publish this row's trace context (java.util.Properties text with"
                + " a W3C traceparent); set cdc.poison.action=skip to skip such events, fix the"
                + " application that writes them, and restart";
      };
    }
    if (find(error, RecordTooLargeException.class) != null
        || find(error, RecordBatchTooLargeException.class) != null) {
      return (beforeSending
              ? "Raise kafka.producer.max.request.size above the record's size (with the topic's"
                  + " max.message.bytes to match) and restart"
              : "Raise the topic's max.message.bytes (or the broker's message.max.bytes, or"
                  + " kafka.producer.max.request.size if the reason names it) above the record's"
                  + " size and restart")
          + OR_SKIP;
    }
    if (find(error, InvalidTopicException.class) != null) {
      return "Kafka refused the topic: change router.topic.template, or the aggregate_type/"
          + "event_type values it is made from, and restart"
          + OR_SKIP;
    }
    if (find(error, AuthorizationException.class) != null) {
      return "Allow the relay's Kafka principal to write to the topic and restart" + OR_SKIP;
    }
    return "Fix the cause and restart" + OR_SKIP;
  }

  private static <T extends Throwable> T find(Throwable error, Class<T> type) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
