package io.outboxrelay.testsupport.outbox;

import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts, for the events a test wrote, what reached Kafka: lost, duplicated, out of order per
 * aggregate, and records that do not match what was written (topic, key, headers, payload bytes).
 * Thread-safe for {@link #expect}.
 */
public final class Ledger {

  private final Map<String, TestEvent> expected = new ConcurrentHashMap<>();
  private final String topicPrefix;
  private boolean semanticPayloads;

  /**
   * Creates a ledger.
   *
   * @param topicPrefix the topic of an event is {@code topicPrefix + aggregate_type}
   */
  public Ledger(String topicPrefix) {
    this.topicPrefix = topicPrefix;
  }

  /**
   * Compares payloads as JSON values instead of bytes: for PostgreSQL's jsonb, which keeps a parsed
   * form and renders it back in its own way.
   */
  public Ledger semanticPayloads() {
    this.semanticPayloads = true;
    return this;
  }

  /** Registers a written (committed) event. */
  public void expect(TestEvent event) {
    expected.put(event.eventId(), event);
  }

  /** Registers written events. */
  public void expect(List<TestEvent> events) {
    events.forEach(this::expect);
  }

  /** How many events were registered. */
  public int size() {
    return expected.size();
  }

  /** Whether every registered event is among the records. */
  public boolean allArrived(List<ConsumedRecord> records) {
    Set<String> seen = new HashSet<>();
    for (ConsumedRecord r : records) {
      seen.add(r.header("id"));
    }
    return seen.containsAll(expected.keySet());
  }

  /** The outcome of a check. */
  public record Result(
      int expected,
      int received,
      int lost,
      int duplicates,
      int outOfOrder,
      int unexpected,
      List<String> mismatches) {
    /** One line for assertion messages. */
    public String summary() {
      return "expected="
          + expected
          + " received="
          + received
          + " lost="
          + lost
          + " duplicates="
          + duplicates
          + " outOfOrder="
          + outOfOrder
          + " unexpected="
          + unexpected
          + " mismatches="
          + mismatches.size()
          + (mismatches.isEmpty() ? "" : " first: " + mismatches.get(0));
    }
  }

  /**
   * Checks the records against the registered events.
   *
   * <p>Order: per aggregate, the first arrival of each event must come in sequence order (a
   * duplicate re-sent later does not count as disorder; a later event overtaking an earlier one
   * does).
   */
  public Result check(List<ConsumedRecord> records) {
    Map<String, Integer> counts = new HashMap<>();
    Map<String, Long> lastSeq = new HashMap<>();
    int outOfOrder = 0;
    int unexpected = 0;
    List<String> mismatches = new ArrayList<>();
    for (ConsumedRecord r : records) {
      String id = r.header("id");
      TestEvent e = id == null ? null : expected.get(id);
      if (e == null) {
        unexpected++;
        continue;
      }
      int n = counts.merge(id, 1, Integer::sum);
      if (n > 1) {
        continue;
      }
      String aggregate = e.aggregateType() + "/" + e.aggregateId();
      Long previous = lastSeq.get(aggregate);
      if (previous != null && e.sequence() < previous) {
        outOfOrder++;
      }
      lastSeq.merge(aggregate, e.sequence(), Math::max);
      String mismatch = mismatch(e, r);
      if (mismatch != null && mismatches.size() < 20) {
        mismatches.add(mismatch);
      }
    }
    int lost = 0;
    int duplicates = 0;
    for (String id : expected.keySet()) {
      int n = counts.getOrDefault(id, 0);
      if (n == 0) {
        lost++;
      } else {
        duplicates += n - 1;
      }
    }
    return new Result(
        expected.size(), records.size(), lost, duplicates, outOfOrder, unexpected, mismatches);
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private static boolean sameJson(String a, String b) {
    try {
      return JSON.readTree(a).equals(JSON.readTree(b));
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private String mismatch(TestEvent e, ConsumedRecord r) {
    String topic = topicPrefix + e.aggregateType();
    if (!r.topic().equals(topic)) {
      return e.eventId() + ": topic " + r.topic() + " != " + topic;
    }
    if (!e.aggregateId().equals(r.keyAsString())) {
      return e.eventId() + ": key " + r.keyAsString() + " != " + e.aggregateId();
    }
    if (!e.eventType().equals(r.header("event_type"))
        || !e.aggregateType().equals(r.header("aggregate_type"))
        || !e.aggregateId().equals(r.header("aggregate_id"))) {
      return e.eventId() + ": headers " + r.headers().keySet();
    }
    if (semanticPayloads
        ? !sameJson(e.payload(), r.valueAsString())
        : !java.util.Arrays.equals(e.payload().getBytes(StandardCharsets.UTF_8), r.value())) {
      return e.eventId() + ": payload bytes differ: " + r.valueAsString();
    }
    return null;
  }
}
