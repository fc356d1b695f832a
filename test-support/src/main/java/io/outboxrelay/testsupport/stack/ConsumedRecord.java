package io.outboxrelay.testsupport.stack;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A record read from Kafka by a {@link TopicReader}, with raw bytes.
 *
 * <p>Immutable as far as Java allows: the byte arrays are shared, not copied; do not modify them.
 * {@code equals} and {@code hashCode} compare array contents. Thread-safe.
 *
 * @param topic the topic
 * @param partition the partition
 * @param offset the offset
 * @param key the key, {@code null} if none
 * @param headers the headers, last value per name, in order of first appearance; values may be
 *     {@code null}
 * @param value the value, {@code null} for a tombstone
 * @param timestamp the record timestamp in epoch milliseconds
 */
public record ConsumedRecord(
    String topic,
    int partition,
    long offset,
    byte[] key,
    Map<String, byte[]> headers,
    byte[] value,
    long timestamp) {

  /** Copies {@code headers} into an unmodifiable map that keeps their order. */
  public ConsumedRecord {
    Objects.requireNonNull(topic, "topic");
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /** The key as UTF-8 text, {@code null} if there is no key. */
  public String keyAsString() {
    return text(key);
  }

  /** The value as UTF-8 text, {@code null} for a tombstone. */
  public String valueAsString() {
    return text(value);
  }

  /**
   * A header value as UTF-8 text.
   *
   * @param name the header name
   * @return the value, {@code null} if the header is absent or has no value
   */
  public String header(String name) {
    return text(headers.get(name));
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ConsumedRecord that)) {
      return false;
    }
    return partition == that.partition
        && offset == that.offset
        && timestamp == that.timestamp
        && topic.equals(that.topic)
        && Arrays.equals(key, that.key)
        && Arrays.equals(value, that.value)
        && headersEqual(headers, that.headers);
  }

  @Override
  public int hashCode() {
    int hash = Objects.hash(topic, partition, offset, timestamp);
    hash = 31 * hash + Arrays.hashCode(key);
    hash = 31 * hash + Arrays.hashCode(value);
    for (Map.Entry<String, byte[]> header : headers.entrySet()) {
      hash = 31 * hash + (header.getKey().hashCode() ^ Arrays.hashCode(header.getValue()));
    }
    return hash;
  }

  @Override
  public String toString() {
    StringBuilder text =
        new StringBuilder("ConsumedRecord[")
            .append(topic)
            .append('-')
            .append(partition)
            .append('@')
            .append(offset)
            .append(", key=")
            .append(abbreviate(keyAsString()))
            .append(", headers={");
    Iterator<Map.Entry<String, byte[]>> entries = headers.entrySet().iterator();
    while (entries.hasNext()) {
      Map.Entry<String, byte[]> header = entries.next();
      text.append(header.getKey()).append('=').append(abbreviate(text(header.getValue())));
      if (entries.hasNext()) {
        text.append(", ");
      }
    }
    return text.append("}, value=")
        .append(abbreviate(valueAsString()))
        .append(", timestamp=")
        .append(timestamp)
        .append(']')
        .toString();
  }

  private static boolean headersEqual(Map<String, byte[]> a, Map<String, byte[]> b) {
    if (a.size() != b.size()) {
      return false;
    }
    Iterator<Map.Entry<String, byte[]>> left = a.entrySet().iterator();
    Iterator<Map.Entry<String, byte[]>> right = b.entrySet().iterator();
    while (left.hasNext()) {
      Map.Entry<String, byte[]> l = left.next();
      Map.Entry<String, byte[]> r = right.next();
      if (!l.getKey().equals(r.getKey()) || !Arrays.equals(l.getValue(), r.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static String abbreviate(String text) {
    if (text == null) {
      return "null";
    }
    return text.length() <= 80 ? text : text.substring(0, 77) + "...";
  }
}
