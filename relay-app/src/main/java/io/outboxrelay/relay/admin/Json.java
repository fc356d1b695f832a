package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Instant;

/** JSON output of the commands ({@code --json}): one document, indented. Thread-safe. */
final class Json {

  /** Reads JSON and writes it compactly (stored offsets). */
  static final ObjectMapper MAPPER = new ObjectMapper();

  private static final ObjectMapper INDENTED =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ObjectNode row(OutboxRow r) {
    ObjectNode n = object();
    n.put("id", r.id());
    n.put("event_id", r.eventId());
    n.put("event_type", r.eventType());
    n.put("aggregate_type", r.aggregateType());
    n.put("aggregate_id", r.aggregateId());
    n.put("status", r.status());
    n.put("attempts", r.attempts());
    put(n, "created_at", r.createdAt());
    put(n, "next_attempt_at", r.nextAttemptAt());
    put(n, "processing_until", r.processingUntil());
    put(n, "published_at", r.publishedAt());
    n.put("last_error", r.lastError());
    if (r.payload() != null) {
      n.put("payload", r.payload());
    }
    return n;
  }

  static void put(ObjectNode n, String field, Instant t) {
    if (t == null) {
      n.putNull(field);
    } else {
      n.put(field, t.toString());
    }
  }

  static void print(PrintWriter out, Object node) {
    try {
      out.println(INDENTED.writeValueAsString(node));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // a tree of plain nodes always serialises
    }
  }
}
