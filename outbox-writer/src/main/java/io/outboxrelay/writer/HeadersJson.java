package io.outboxrelay.writer;

import java.util.Map;

/**
 * Writes the headers column: a JSON object whose members are all JSON strings, in the map's order.
 * The text is ASCII: quotes, backslashes and control characters are escaped as JSON requires, and
 * every character above U+007E as {@code \}{@code uXXXX} (a pair of escapes for a supplementary
 * character), so the stored text does not depend on the column's character set. Names and values
 * must be valid UTF-16 (no unpaired surrogate), which {@link EventCheck} makes sure of.
 */
final class HeadersJson {

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private HeadersJson() {}

  /**
   * The JSON object of the headers, or {@code null} for none (the column is then NULL).
   *
   * @param headers names and values, in the order they are written
   */
  static String encode(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    StringBuilder json = new StringBuilder(32 * headers.size());
    json.append('{');
    boolean first = true;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (!first) {
        json.append(',');
      }
      first = false;
      string(json, header.getKey());
      json.append(':');
      string(json, header.getValue());
    }
    return json.append('}').toString();
  }

  /** Appends {@code s} as a JSON string. */
  static void string(StringBuilder json, String s) {
    json.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        case '\b' -> json.append("\\b");
        case '\f' -> json.append("\\f");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            json.append("\\u")
                .append(HEX[c >> 12])
                .append(HEX[(c >> 8) & 0xf])
                .append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
