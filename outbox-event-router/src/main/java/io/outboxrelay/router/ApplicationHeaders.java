package io.outboxrelay.router;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The application headers of an event: the optional {@code headers} column, parsed and checked.
 * This class states the contract, which the relay, the Kafka Connect transform and the writer
 * library share:
 *
 * <ul>
 *   <li>NULL, or the empty object {@code {}}: no application headers.
 *   <li>Otherwise a JSON object whose members are all JSON strings, e.g. {@code
 *       {"tenant":"acme","source":"checkout"}}. Member names are non-empty and unique, and none is
 *       one of the {@linkplain #RESERVED reserved names} {@code id}, {@code event_type}, {@code
 *       aggregate_type}, {@code aggregate_id}, {@code aggregate_version} (exact, case-sensitive).
 *   <li>Each member's name plus value is at most {@value #MAX_ENTRY_BYTES} bytes in UTF-8.
 *   <li>Each member becomes one Kafka header, after the relay's own headers, in the object's member
 *       order; its value is the UTF-8 encoding of the string. (PostgreSQL's {@code jsonb} and
 *       MySQL's {@code JSON} store objects with their members reordered and duplicate names merged:
 *       declare the column as text where the order matters.)
 * </ul>
 *
 * <p>Anything else makes the event poison: {@link #parse} throws a {@link RoutingException} with
 * {@link RoutingException.Reason#INVALID_HEADERS} whose message says what is wrong and where (a
 * character offset), names the offending header (at most {@value #NAME_IN_MESSAGES} characters of
 * it), and never contains a header value, which may hold personal data.
 *
 * <p>{@link #encode} writes the column (the writer library uses it) and {@link #parse} reads it
 * (the relay, the Kafka Connect transform): what one writes, the other reads back exactly.
 *
 * <p>The parser accepts exactly this shape of JSON (RFC 8259): whitespace between tokens, every
 * string escape including {@code \\uXXXX} and surrogate pairs; it refuses control characters inside
 * strings, unpaired surrogates, and any text after the object. Stateless and thread-safe.
 */
public final class ApplicationHeaders {

  /**
   * Names an application header may not have: the relay's own headers, whatever {@code
   * router.headers} publishes.
   */
  public static final Set<String> RESERVED = Set.copyOf(OutboxHeaders.ALL);

  /** Most bytes one header's name plus value may take in UTF-8. */
  public static final int MAX_ENTRY_BYTES = 8192;

  /** Most characters of a header name that messages show. */
  static final int NAME_IN_MESSAGES = 64;

  private final String text;
  private int pos;

  private ApplicationHeaders(String text) {
    this.text = text;
  }

  /**
   * Parses and checks the {@code headers} column of one event.
   *
   * @param json the column's text; {@code null} for SQL NULL
   * @return the headers in member order; empty for NULL or {@code {}}; unmodifiable
   * @throws RoutingException ({@link RoutingException.Reason#INVALID_HEADERS}) when the text breaks
   *     the contract; the message says how, without the event (the caller adds it) and without any
   *     header value
   */
  public static List<RecordHeader> parse(String json) {
    if (json == null) {
      return List.of();
    }
    return new ApplicationHeaders(json).object();
  }

  private List<RecordHeader> object() {
    skipWhitespace();
    if (pos >= text.length()) {
      throw invalid(text.isEmpty() ? "it is empty" : "it is only whitespace");
    }
    if (text.charAt(pos) != '{') {
      String kind = describeValueAt(pos);
      throw invalid(
          kind == null
              ? "it is not JSON: expected '{' at offset " + pos
              : "it is " + kind + ", not a JSON object");
    }
    pos++;
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return end(List.of());
    }
    List<RecordHeader> headers = new ArrayList<>();
    Set<String> names = new HashSet<>();
    while (true) {
      int nameAt = pos;
      if (peek() != '"') {
        throw invalid(
            "expected a member name (a JSON string) at offset " + pos + ", found " + found(pos));
      }
      String name = string("a member name");
      skipWhitespace();
      if (peek() != ':') {
        throw invalid(
            "expected ':' after the name of header "
                + quote(name)
                + " at offset "
                + pos
                + ", found "
                + found(pos));
      }
      pos++;
      skipWhitespace();
      if (peek() != '"') {
        String kind = describeValueAt(pos);
        throw invalid(
            "the value of header "
                + quote(name)
                + (kind == null
                    ? " at offset " + pos + " is not JSON"
                    : " is " + kind + ", not a JSON string: write every value as a string"));
      }
      String value = string("the value of header " + quote(name));
      headers.add(checked(name, value, nameAt, names));
      skipWhitespace();
      char c = peek();
      if (c == ',') {
        pos++;
        skipWhitespace();
      } else if (c == '}') {
        pos++;
        return end(headers);
      } else {
        throw invalid("expected ',' or '}' at offset " + pos + ", found " + found(pos));
      }
    }
  }

  private List<RecordHeader> end(List<RecordHeader> headers) {
    skipWhitespace();
    if (pos < text.length()) {
      throw invalid("text follows the object's closing '}' at offset " + pos);
    }
    return headers.isEmpty() ? List.of() : List.copyOf(headers);
  }

  private RecordHeader checked(String name, String value, int at, Set<String> names) {
    if (name.isEmpty()) {
      throw invalid("the header name at offset " + at + " is empty");
    }
    if (RESERVED.contains(name)) {
      throw invalid(
          "header name "
              + quote(name)
              + " is reserved for the relay's own headers ("
              + String.join(", ", OutboxHeaders.ALL)
              + "): rename it");
    }
    if (!names.add(name)) {
      throw invalid("header " + quote(name) + " appears twice: names must be unique");
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    int size = utf8Length(name) + bytes.length;
    if (size > MAX_ENTRY_BYTES) {
      throw invalid(
          "header "
              + quote(name)
              + " takes "
              + size
              + " bytes (name plus value in UTF-8), more than "
              + MAX_ENTRY_BYTES);
    }
    return new RecordHeader(name, bytes);
  }

  /** Reads a JSON string starting at its opening quote; {@code what} names it in messages. */
  private String string(String what) {
    int start = ++pos; // after the opening quote
    StringBuilder decoded = null;
    int n = text.length();
    while (pos < n) {
      char c = text.charAt(pos);
      if (c == '"') {
        String s = decoded == null ? text.substring(start, pos) : decoded.toString();
        pos++;
        requireWellFormed(s, what, start - 1);
        return s;
      }
      if (c < 0x20) {
        throw invalid(
            what
                + " holds the control character U+"
                + hex4(c)
                + " at offset "
                + pos
                + ": escape it (e.g. \\n)");
      }
      if (c == '\\') {
        if (decoded == null) {
          decoded = new StringBuilder(pos - start + 16).append(text, start, pos);
        }
        pos++;
        decoded.append(escape(what));
      } else {
        if (decoded != null) {
          decoded.append(c);
        }
        pos++;
      }
    }
    throw invalid(what + " starting at offset " + (start - 1) + " is not terminated");
  }

  /** Decodes the escape after a backslash; {@code pos} is at the character after it. */
  private char escape(String what) {
    if (pos >= text.length()) {
      throw invalid(what + " ends inside an escape at offset " + (pos - 1));
    }
    char c = text.charAt(pos++);
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u':
        return unicodeEscape(what);
      default:
        throw invalid(
            what
                + " has an invalid escape at offset "
                + (pos - 2)
                + ": only \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX are JSON");
    }
  }

  private char unicodeEscape(String what) {
    int at = pos - 2;
    if (pos + 4 > text.length()) {
      throw invalid(what + " has an incomplete \\u escape at offset " + at);
    }
    int value = 0;
    for (int i = 0; i < 4; i++) {
      int digit = Character.digit(text.charAt(pos + i), 16);
      if (digit < 0) {
        throw invalid(what + " has a \\u escape without four hexadecimal digits at offset " + at);
      }
      value = value * 16 + digit;
    }
    pos += 4;
    return (char) value;
  }

  /** Refuses unpaired surrogates, which have no UTF-8 encoding. */
  private void requireWellFormed(String s, String what, int at) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        throw invalid(
            what
                + " starting at offset "
                + at
                + " has an unpaired high surrogate U+"
                + hex4(c)
                + ": it has no UTF-8 encoding");
      }
      if (Character.isLowSurrogate(c)) {
        throw invalid(
            what
                + " starting at offset "
                + at
                + " has an unpaired low surrogate U+"
                + hex4(c)
                + ": it has no UTF-8 encoding");
      }
    }
  }

  private void skipWhitespace() {
    int n = text.length();
    while (pos < n) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  /** The character at {@code pos}, or NUL at the end (which no branch accepts). */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  /** What is at {@code at}, for "found ..." without quoting the text itself. */
  private String found(int at) {
    if (at >= text.length()) {
      return "the end of the text";
    }
    char c = text.charAt(at);
    return switch (c) {
      case '{', '}', '[', ']', ':', ',', '"' -> "'" + c + "'";
      default -> "another character";
    };
  }

  /** Which kind of JSON value starts at {@code at}, without its content; null when none. */
  private String describeValueAt(int at) {
    if (at >= text.length()) {
      return null;
    }
    char c = text.charAt(at);
    if (c == '[') {
      return "a JSON array";
    }
    if (c == '{') {
      return "a JSON object";
    }
    if (c == '"') {
      return "a JSON string";
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      return "a JSON number";
    }
    if (text.startsWith("true", at) || text.startsWith("false", at)) {
      return "a JSON boolean";
    }
    if (text.startsWith("null", at)) {
      return "JSON null";
    }
    return null;
  }

  private static RoutingException invalid(String reason) {
    return new RoutingException(RoutingException.Reason.INVALID_HEADERS, reason);
  }

  /**
   * A header name for messages: quoted, at most {@value #NAME_IN_MESSAGES} characters, control
   * characters escaped so that the message stays on one line.
   */
  static String quote(String name) {
    StringBuilder sb =
        new StringBuilder(Math.min(name.length(), NAME_IN_MESSAGES) + 8).append('\'');
    int shown = Math.min(name.length(), NAME_IN_MESSAGES);
    for (int i = 0; i < shown; i++) {
      char c = name.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        sb.append("\\u").append(hex4(c));
      } else {
        sb.append(c);
      }
    }
    sb.append('\'');
    if (name.length() > shown) {
      sb.append(" (").append(name.length()).append(" characters, shortened)");
    }
    return sb.toString();
  }

  private static String hex4(char c) {
    String h = Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT);
    return "0000".substring(h.length()) + h;
  }

  /**
   * The length of a string in UTF-8, without encoding it: what {@link #MAX_ENTRY_BYTES} bounds.
   *
   * @param s a string; not {@code null}
   * @return the number of bytes, or {@code -(index + 1)} of the first unpaired surrogate (which has
   *     no UTF-8 encoding)
   */
  public static int utf8Length(String s) {
    int bytes = 0;
    int length = s.length();
    for (int i = 0; i < length; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < length
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        return -(i + 1);
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /**
   * Writes the {@code headers} column: the JSON object that {@link #parse} reads back as exactly
   * these headers, in the map's order. The text is ASCII: quotes, backslashes and control
   * characters are escaped as JSON requires, and every character above U+007E as {@code \}{@code
   * uXXXX} (a pair of escapes for a supplementary character), so the stored text does not depend on
   * the column's character set.
   *
   * @param headers names and values in the order to write them; not {@code null}, no {@code null}
   *     name or value. The rules of the column (reserved names, {@link #MAX_ENTRY_BYTES}, no
   *     unpaired surrogate) are not checked here: {@link #parse} refuses text that breaks them
   * @return the JSON object, or {@code null} (SQL NULL) when the map is empty
   */
  public static String encode(Map<String, String> headers) {
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
      jsonString(json, header.getKey());
      json.append(':');
      jsonString(json, header.getValue());
    }
    return json.append('}').toString();
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Appends {@code s} as an ASCII JSON string. */
  private static void jsonString(StringBuilder json, String s) {
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
