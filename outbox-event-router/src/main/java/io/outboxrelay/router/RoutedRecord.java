package io.outboxrelay.router;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A record ready to publish: topic, key, headers and value. Immutable apart from the byte arrays,
 * which are shared with the {@link OutboxEvent} they came from and must not be modified. {@link
 * #toString()} never prints the value.
 *
 * @param topic the Kafka topic, already checked to be a legal topic name
 * @param key the record key (the UTF-8 aggregate id); never null
 * @param headers the record headers in publishing order; never null, unmodifiable
 * @param value the record value (the raw payload bytes); {@link EventRouter} never makes a {@code
 *     null} (tombstone) value
 */
public record RoutedRecord(String topic, byte[] key, List<RecordHeader> headers, byte[] value) {

  /**
   * Checks the fields and freezes the header list.
   *
   * @throws NullPointerException if {@code topic}, {@code key} or {@code headers} is null
   */
  public RoutedRecord {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(key, "key");
    headers = List.copyOf(headers);
  }

  /**
   * The value of the first header with this name.
   *
   * @param name the header name
   * @return the header value as UTF-8 text, or {@code null} when there is no such header
   */
  public String header(String name) {
    for (RecordHeader header : headers) {
      if (header.name().equals(name)) {
        return header.valueAsString();
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoutedRecord other
        && topic.equals(other.topic)
        && Arrays.equals(key, other.key)
        && headers.equals(other.headers)
        && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(topic, headers) * 31 * 31
        + Arrays.hashCode(key) * 31
        + Arrays.hashCode(value);
  }

  /** Describes the record without its value, which may hold personal data. */
  @Override
  public String toString() {
    return "RoutedRecord[topic="
        + topic
        + ", headers="
        + headers
        + ", valueBytes="
        + (value == null ? "null" : value.length)
        + "]";
  }
}
