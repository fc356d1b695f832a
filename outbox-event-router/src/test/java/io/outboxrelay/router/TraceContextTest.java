package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.StringWriter;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The trace context column, in both directions, rendered as OpenTelemetry's W3C propagator. */
class TraceContextTest {

  private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  /** What Debezium's outbox extension writes: Properties.store of the injected context. */
  private static String stored(String... keyValues) throws IOException {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    StringWriter w = new StringWriter();
    p.store(w, null);
    return w.toString();
  }

  private static List<String> headers(String text) {
    return TraceContext.headers(text).stream()
        .map(h -> h.name() + "=" + h.valueAsString())
        .toList();
  }

  @Test
  void readsTheTextPropertiesStoreWritesWithItsDateComment() throws IOException {
    String text =
        stored("traceparent", PARENT, "tracestate", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");

    assertThat(text).startsWith("#").contains("tracestate=congo\\=t61rcWkgMzE");
    assertThat(headers(text))
        .containsExactly(
            "traceparent=" + PARENT, "tracestate=congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
  }

  @Test
  void publishesNoTraceHeadersForNullBlankOrATextWithoutTraceparent() throws IOException {
    assertThat(TraceContext.headers(null)).isEmpty();
    assertThat(TraceContext.headers("  \n")).isEmpty();
    assertThat(TraceContext.headers(stored("uber-trace-id", "abc:def:0:1"))).isEmpty();
    assertThat(TraceContext.headers(stored("tracestate", "a=b"))).isEmpty();
  }

  @Test
  void leavesOutAnEmptyTracestate() {
    assertThat(headers("traceparent=" + PARENT + "\ntracestate="))
        .containsExactly("traceparent=" + PARENT);
  }

  /** A value, then how the propagator renders it. */
  static Stream<Arguments> rendered() {
    return Stream.of(
        Arguments.of("traceparent", PARENT, PARENT),
        Arguments.of(
            "traceparent",
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03-future-fields",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03"),
        Arguments.of(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-ff",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-ff"),
        Arguments.of("tracestate", "a=1 ,\tb=2 , c=3", "a=1,b=2,c=3"),
        Arguments.of("tracestate", "a=1,", "a=1"),
        Arguments.of("tracestate", "t@v=x,a-b_c*d/e=y", "t@v=x,a-b_c*d/e=y"),
        Arguments.of("tracestate", "1t@vendor=x", "1t@vendor=x"));
  }

  @ParameterizedTest
  @MethodSource("rendered")
  void rendersAsOpenTelemetrysW3cPropagatorDoes(String key, String value, String expected)
      throws IOException {
    String text =
        key.equals("traceparent") ? stored(key, value) : stored("traceparent", PARENT, key, value);
    assertThat(TraceContext.headers(text))
        .filteredOn(h -> h.name().equals(key))
        .singleElement()
        .satisfies(h -> assertThat(h.valueAsString()).isEqualTo(expected));
  }

  /** Properties text, then a fragment of the reason it is refused with. */
  static Stream<Arguments> invalid() {
    String t = "0af7651916cd43dd8448eb211c80319c";
    String s = "b7ad6b7169203331";
    return Stream.of(
        Arguments.of("traceparent=\\uZZZZ", "is not java.util.Properties text"),
        Arguments.of("traceparent=00-" + t + "-" + s, "traceparent has 52 characters"),
        Arguments.of("traceparent=00-" + t + "-" + s + "-01x", "traceparent has 56 characters"),
        Arguments.of("traceparent=00-" + t + "-" + s + "-01-x", "version 00 has more than 55"),
        Arguments.of("traceparent=00_" + t + "-" + s + "-01", "separated by '-'"),
        Arguments.of("traceparent=ff-" + t + "-" + s + "-01", "version 'ff'"),
        Arguments.of("traceparent=0G-" + t + "-" + s + "-01", "version '0G'"),
        Arguments.of("traceparent=00-" + t.toUpperCase() + "-" + s + "-01", "the trace id"),
        Arguments.of("traceparent=00-" + "0".repeat(32) + "-" + s + "-01", "not all zero"),
        Arguments.of("traceparent=00-" + t + "-" + "0".repeat(16) + "-01", "the span id"),
        Arguments.of("traceparent=00-" + t + "-" + s + "-0x", "the flags"),
        Arguments.of("traceparent=" + PARENT + "\ntracestate=a", "member 1 is not key=value"),
        Arguments.of("traceparent=" + PARENT + "\ntracestate=A\\=1", "member 1 has a key"),
        Arguments.of(
            "traceparent=" + PARENT + "\ntracestate=a\\=1,b\\=\u00e9", "member 2 has a value"),
        Arguments.of("traceparent=" + PARENT + "\ntracestate=a\\=1,a\\=2", "key of member 2 twice"),
        Arguments.of("traceparent=" + PARENT + "\ntracestate=t@\\=1", "member 1 has a key"),
        Arguments.of(
            "traceparent=" + PARENT + "\ntracestate=" + "a\\=1,".repeat(33), "33 members"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void refusesAMalformedContextSayingWhich(String text, String reason) {
    Throwable thrown = catchThrowable(() -> TraceContext.headers(text));

    assertThat(thrown).isInstanceOf(RoutingException.class).hasMessageContaining(reason);
    assertThat(((RoutingException) thrown).reason())
        .isEqualTo(RoutingException.Reason.INVALID_TRACE_CONTEXT);
  }
}
