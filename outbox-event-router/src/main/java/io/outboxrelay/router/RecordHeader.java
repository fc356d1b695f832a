package io.outboxrelay.router;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One Kafka record header. The value array is not copied; callers must not modify it. {@link
 * #toString()} never prints the value.
 *
 * @param name the header name; never null
 * @param value the header value bytes; never null
 */
public record RecordHeader(String name, byte[] value) {

  /**
   * Checks the fields.
   *
   * @throws NullPointerException if {@code name} or {@code value} is null
   */
  public RecordHeader {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
  }

  /**
   * A header whose value is the UTF-8 encoding of {@code value}.
   *
   * @param name the header name
   * @param value the header value as text
   * @return the header
   */
  public static RecordHeader utf8(String name, String value) {
    return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The header value decoded as UTF-8.
   *
   * @return the value as text
   */
  public String valueAsString() {
    return new String(value, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordHeader other
        && name.equals(other.name)
        && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + Arrays.hashCode(value);
  }

  /**
   * Names the header and the size of its value, never the value: application headers may hold
   * personal data.
   */
  @Override
  public String toString() {
    return name + "(" + value.length + " bytes)";
  }
}
