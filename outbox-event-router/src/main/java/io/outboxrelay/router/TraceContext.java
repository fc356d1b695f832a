package io.outboxrelay.router;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The W3C trace context of an event, from the optional trace context column ({@code
 * tracingspancontext} in Debezium's outbox table): the text of a {@link java.util.Properties}, as
 * Debezium's outbox extension writes it ({@code Properties.store} of what OpenTelemetry's W3C
 * propagator injected), e.g.
 *
 * <pre>
 * #Tue Mar 04 10:15:30 UTC 2025
 * traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01
 * tracestate=congo\=t61rcWkgMzE
 * </pre>
 *
 * <p>It becomes the headers {@code traceparent} and, when not empty, {@code tracestate}: what
 * Debezium's {@code EventRouter} puts on the record when its OpenTelemetry only propagates
 * (OpenTelemetry's W3C propagator extracting the context and injecting it again). So both are
 * rendered as that propagator renders them: {@code traceparent} as {@code 00-<trace id>-<span
 * id>-<flags>} (a higher version is read as version 00 reads it), {@code tracestate} with the
 * blanks around its commas removed. The relay creates no span of its own: with an OpenTelemetry SDK
 * in a Connect worker, Debezium would first start a {@code db-log-write} span and inject that new
 * span's id instead.
 *
 * <p>NULL, blank text, or properties without {@code traceparent}: no trace headers. Text that is
 * not properties text, a {@code traceparent} that is not a W3C trace parent (version, 32 and 16
 * lower-case hexadecimal digits for the trace and span ids, not all zero, two for the flags), or a
 * {@code tracestate} that is not a W3C list (at most 32 members {@code key=value}, keys and values
 * as the W3C allows, no key twice) make the event poison: {@link #headers} throws a {@link
 * RoutingException} with {@link RoutingException.Reason#INVALID_TRACE_CONTEXT} saying which rule
 * the value breaks. Stateless and thread-safe.
 */
public final class TraceContext {

  /** The W3C trace parent header. */
  public static final String TRACEPARENT = "traceparent";

  /** The W3C trace state header. */
  public static final String TRACESTATE = "tracestate";

  private static final int TRACEPARENT_LENGTH = 55;
  private static final int MAX_MEMBERS = 32;
  private static final Pattern MEMBER_DELIMITER = Pattern.compile("[ \t]*,[ \t]*");

  private TraceContext() {}

  /**
   * The trace headers of one event.
   *
   * @param properties the column's text; {@code null} for SQL NULL
   * @return {@code traceparent} and, when there is one, {@code tracestate}, in that order; empty
   *     when the text carries no trace context
   * @throws RoutingException ({@link RoutingException.Reason#INVALID_TRACE_CONTEXT}) when the text
   *     or the context in it is malformed; the message says how, without the event (the caller adds
   *     it)
   */
  public static List<RecordHeader> headers(String properties) {
    if (properties == null || properties.isBlank()) {
      return List.of();
    }
    Properties props = new Properties();
    try {
      props.load(new StringReader(properties));
    } catch (IllegalArgumentException | IOException e) {
      throw invalid(
          "the trace context column is not java.util.Properties text (" + e.getMessage() + ")");
    }
    Object parent = props.get(TRACEPARENT);
    if (!(parent instanceof String traceparent)) {
      return List.of();
    }
    String normalized = traceparent(traceparent);
    Object state = props.get(TRACESTATE);
    if (!(state instanceof String tracestate) || tracestate.isEmpty()) {
      return List.of(RecordHeader.utf8(TRACEPARENT, normalized));
    }
    return List.of(
        RecordHeader.utf8(TRACEPARENT, normalized),
        RecordHeader.utf8(TRACESTATE, tracestate(tracestate)));
  }

  /**
   * Checks a W3C {@code traceparent} as OpenTelemetry's W3C propagator does, and renders it as it
   * does: the one definition of the format that the relay, the transform and the writer's tests
   * share.
   *
   * @param v the header's value; not {@code null}
   * @return {@code 00-<trace id>-<span id>-<flags>}: {@code v} itself when it is of version 00
   * @throws RoutingException ({@link RoutingException.Reason#INVALID_TRACE_CONTEXT}) when it is not
   *     a W3C trace parent; the message says how
   */
  public static String traceparent(String v) {
    int n = v.length();
    if (n < TRACEPARENT_LENGTH || (n > TRACEPARENT_LENGTH && v.charAt(TRACEPARENT_LENGTH) != '-')) {
      throw invalid(
          "traceparent has "
              + n
              + " characters: a W3C trace parent is version-traceid-spanid-flags, 55 characters");
    }
    if (v.charAt(2) != '-' || v.charAt(35) != '-' || v.charAt(52) != '-') {
      throw invalid("traceparent is not version-traceid-spanid-flags separated by '-'");
    }
    String version = v.substring(0, 2);
    if (!isHex(version) || version.equals("ff")) {
      throw invalid("traceparent has version '" + version + "': it must be 00 to fe, lower case");
    }
    if (version.equals("00") && n > TRACEPARENT_LENGTH) {
      throw invalid("traceparent of version 00 has more than 55 characters");
    }
    String traceId = v.substring(3, 35);
    String spanId = v.substring(36, 52);
    String flags = v.substring(53, 55);
    if (!isHex(traceId) || isZeros(traceId)) {
      throw invalid(
          "the trace id in traceparent must be 32 lower-case hexadecimal digits, not all zero");
    }
    if (!isHex(spanId) || isZeros(spanId)) {
      throw invalid(
          "the span id in traceparent must be 16 lower-case hexadecimal digits, not all zero");
    }
    if (!isHex(flags)) {
      throw invalid("the flags in traceparent must be two lower-case hexadecimal digits");
    }
    return n == TRACEPARENT_LENGTH && version.equals("00")
        ? v
        : "00-" + traceId + "-" + spanId + "-" + flags;
  }

  /**
   * Checks a W3C {@code tracestate} as OpenTelemetry's W3C propagator does, and renders it as it
   * does (the blanks around its commas removed).
   *
   * @param v the header's value; not {@code null}
   * @return the rendered value
   * @throws RoutingException ({@link RoutingException.Reason#INVALID_TRACE_CONTEXT}) when it is not
   *     a W3C trace state; the message says how
   */
  public static String tracestate(String v) {
    String[] members = MEMBER_DELIMITER.split(v);
    if (members.length > MAX_MEMBERS) {
      throw invalid(
          "tracestate has " + members.length + " members, more than the W3C's " + MAX_MEMBERS);
    }
    Set<String> keys = new HashSet<>();
    List<String> out = new ArrayList<>(members.length);
    for (int i = 0; i < members.length; i++) {
      String member = members[i];
      int eq = member.indexOf('=');
      if (eq < 0) {
        throw invalid("tracestate member " + (i + 1) + " is not key=value");
      }
      String key = member.substring(0, eq);
      String value = member.substring(eq + 1);
      if (!isKeyValid(key)) {
        throw invalid("tracestate member " + (i + 1) + " has a key the W3C does not allow");
      }
      if (!isValueValid(value)) {
        throw invalid("tracestate member " + (i + 1) + " has a value the W3C does not allow");
      }
      if (!keys.add(key)) {
        throw invalid("tracestate has the key of member " + (i + 1) + " twice");
      }
      out.add(member);
    }
    return String.join(",", out);
  }

  /** A W3C tracestate key: {@code [a-z][a-z0-9_*-/]*} up to 256, or {@code tenant@vendor}. */
  private static boolean isKeyValid(String key) {
    if (key.isEmpty() || key.length() > 256 || !isLowerOrDigit(key.charAt(0))) {
      return false;
    }
    boolean vendor = false;
    for (int i = 1; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!isLowerOrDigit(c) && c != '_' && c != '-' && c != '@' && c != '*' && c != '/') {
        return false;
      }
      if (c == '@') {
        int vendorLength = key.length() - i - 1;
        if (vendor || i > 241 || vendorLength == 0 || vendorLength > 14) {
          return false;
        }
        vendor = true;
      }
    }
    return vendor || !Character.isDigit(key.charAt(0));
  }

  /** A W3C tracestate value: 1-256 printable ASCII characters but {@code ,} and {@code =}. */
  private static boolean isValueValid(String value) {
    if (value.isEmpty() || value.length() > 256 || value.charAt(value.length() - 1) == ' ') {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ',' || c == '=' || c < ' ' || c > '~') {
        return false;
      }
    }
    return true;
  }

  private static boolean isLowerOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  private static boolean isHex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isZeros(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }

  private static RoutingException invalid(String reason) {
    return new RoutingException(RoutingException.Reason.INVALID_TRACE_CONTEXT, reason);
  }
}
