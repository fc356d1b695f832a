package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The headers column's contract, in both directions: what parses into which headers, and what is
 * refused with which reason; then random text, which must never throw anything but the poison
 * exception.
 */
class ApplicationHeadersTest {

  /** Text, then the headers it gives as name=value pairs in order. */
  static Stream<Arguments> valid() {
    return Stream.of(
        Arguments.of("{}", List.of()),
        Arguments.of(" \t\r\n{ \n}\n ", List.of()),
        Arguments.of("{\"tenant\":\"acme\"}", List.of("tenant=acme")),
        Arguments.of(
            "{\"b\":\"2\",\"a\":\"1\",\"c\":\"3\"}", List.of("b=2", "a=1", "c=3")), // member order
        Arguments.of("{ \"a\" : \"\" }", List.of("a=")), // an empty value is a value
        Arguments.of("{\"esc\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}", List.of("esc=\"\\/\b\f\n\r\t")),
        Arguments.of("{\"u\":\"caf\\u00e9 \\u00E9\"}", List.of("u=café é")),
        Arguments.of("{\"emoji\":\"\\ud83d\\ude00\"}", List.of("emoji=\uD83D\uDE00")),
        Arguments.of("{\"raw\":\"\uD83D\uDE00 café\"}", List.of("raw=\uD83D\uDE00 café")));
  }

  @ParameterizedTest
  @MethodSource("valid")
  void parsesAFlatObjectOfStringsIntoHeadersInMemberOrder(String json, List<String> expected) {
    assertThat(ApplicationHeaders.parse(json))
        .extracting(h -> h.name() + "=" + new String(h.value(), StandardCharsets.UTF_8))
        .containsExactlyElementsOf(expected);
  }

  @Test
  void readsNullAsNoHeaders() {
    assertThat(ApplicationHeaders.parse(null)).isEmpty();
  }

  @Test
  void valuesAreTheStringsUtf8Bytes() {
    RecordHeader h = ApplicationHeaders.parse("{\"k\":\"\\u00e9\"}").get(0);
    assertThat(h.value()).containsExactly(0xC3 - 256, 0xA9 - 256);
  }

  @Test
  void acceptsAnEntryOfExactlyTheLimitAndRefusesOneByteMore() {
    String name = "n";
    String fits = "x".repeat(ApplicationHeaders.MAX_ENTRY_BYTES - 1);
    assertThat(ApplicationHeaders.parse("{\"" + name + "\":\"" + fits + "\"}")).hasSize(1);
    // Two bytes per é: the limit counts UTF-8 bytes, not characters.
    String tooLong = "é".repeat(ApplicationHeaders.MAX_ENTRY_BYTES / 2);
    assertThatThrownBy(() -> ApplicationHeaders.parse("{\"n\":\"" + tooLong + "\"}"))
        .isInstanceOf(RoutingException.class)
        .hasMessageContaining("header 'n' takes 8193 bytes")
        .hasMessageNotContaining("é");
  }

  /** Text, then a fragment of the reason it is refused with. */
  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("", "it is empty"),
        Arguments.of("   ", "it is only whitespace"),
        Arguments.of("null", "it is JSON null, not a JSON object"),
        Arguments.of("[]", "it is a JSON array, not a JSON object"),
        Arguments.of("\"a\"", "it is a JSON string, not a JSON object"),
        Arguments.of("42", "it is a JSON number, not a JSON object"),
        Arguments.of("tenant=acme", "it is not JSON: expected '{' at offset 0"),
        Arguments.of("{", "expected a member name (a JSON string) at offset 1, found the end"),
        Arguments.of("{\"a\":\"1\",}", "expected a member name (a JSON string) at offset 9"),
        Arguments.of("{a:\"1\"}", "expected a member name (a JSON string) at offset 1"),
        Arguments.of("{\"a\" \"1\"}", "expected ':' after the name of header 'a' at offset 5"),
        Arguments.of("{\"a\":1}", "the value of header 'a' is a JSON number, not a JSON string"),
        Arguments.of("{\"a\":true}", "the value of header 'a' is a JSON boolean"),
        Arguments.of("{\"a\":null}", "the value of header 'a' is JSON null"),
        Arguments.of("{\"a\":{\"b\":\"c\"}}", "the value of header 'a' is a JSON object"),
        Arguments.of("{\"a\":[\"x\"]}", "the value of header 'a' is a JSON array"),
        Arguments.of("{\"a\":x}", "the value of header 'a' at offset 5 is not JSON"),
        Arguments.of("{\"a\":\"1\" \"b\":\"2\"}", "expected ',' or '}' at offset 9, found '\"'"),
        Arguments.of("{\"a\":\"1\"} x", "text follows the object's closing '}' at offset 10"),
        Arguments.of("{\"a\":\"1\"}{}", "text follows the object's closing '}' at offset 9"),
        Arguments.of(
            "{\"a\":\"1", "the value of header 'a' starting at offset 5 is not terminated"),
        Arguments.of("{\"a\":\"x\ny\"}", "holds the control character U+000A at offset 7"),
        Arguments.of("{\"a\":\"\\x\"}", "has an invalid escape at offset 6"),
        Arguments.of("{\"a\":\"\\u12\"}", "has a \\u escape without four hexadecimal digits"),
        Arguments.of("{\"a\":\"\\u12", "has an incomplete \\u escape at offset 6"),
        Arguments.of("{\"a\":\"\\", "ends inside an escape"),
        Arguments.of("{\"a\":\"\\ud83d\"}", "has an unpaired high surrogate U+D83D"),
        Arguments.of("{\"a\":\"\\ude00x\"}", "has an unpaired low surrogate U+DE00"),
        Arguments.of("{\"a\":\"\\ud83d\\u0041\"}", "has an unpaired high surrogate"),
        Arguments.of("{\"\":\"1\"}", "the header name at offset 1 is empty"),
        Arguments.of("{\"a\":\"1\",\"a\":\"2\"}", "header 'a' appears twice"),
        Arguments.of("{\"id\":\"1\"}", "header name 'id' is reserved for the relay's own headers"),
        Arguments.of("{\"event_type\":\"x\"}", "header name 'event_type' is reserved"),
        Arguments.of("{\"aggregate_type\":\"x\"}", "header name 'aggregate_type' is reserved"),
        Arguments.of("{\"aggregate_id\":\"x\"}", "header name 'aggregate_id' is reserved"),
        Arguments.of(
            "{\"aggregate_version\":\"7\"}", "header name 'aggregate_version' is reserved"),
        Arguments.of("{\"\\u0069d\":\"x\"}", "header name 'id' is reserved"),
        Arguments.of("{\"a\\nb\":1}", "the value of header 'a\\u000Ab' is a JSON number"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void refusesTextThatBreaksTheContractSayingWhy(String json, String reason) {
    Throwable thrown = catchThrowable(() -> ApplicationHeaders.parse(json));

    assertThat(thrown)
        .isInstanceOf(RoutingException.class)
        .hasMessageContaining(reason)
        .hasNoCause();
    assertThat(((RoutingException) thrown).reason())
        .isEqualTo(RoutingException.Reason.INVALID_HEADERS);
    assertThat(thrown.getMessage()).doesNotContain("\n");
  }

  @Test
  void reservedNamesAreCaseSensitive() {
    assertThat(ApplicationHeaders.parse("{\"ID\":\"x\",\"Event_Type\":\"y\"}"))
        .extracting(RecordHeader::name)
        .containsExactly("ID", "Event_Type");
  }

  @Test
  void neverPutsAValueIntoAMessage() {
    String secret = "alice@example.com";
    for (String json :
        List.of(
            "{\"email\":\"" + secret + "\",\"email\":\"" + secret + "\"}",
            "{\"email\":\"" + secret + "\",\"id\":\"" + secret + "\"}",
            "{\"email\":\"" + secret + "\" \"x\":\"y\"}",
            "{\"email\":\"" + secret + "x".repeat(9000) + "\"}",
            "{\"email\":\"" + secret + "\n\"}")) {
      assertThat(catchThrowable(() -> ApplicationHeaders.parse(json)))
          .isInstanceOf(RoutingException.class)
          .message()
          .doesNotContain(secret);
    }
  }

  @Test
  void shortensAVeryLongNameInMessages() {
    String name = "n".repeat(10_000);
    assertThatThrownBy(() -> ApplicationHeaders.parse("{\"" + name + "\":1}"))
        .hasMessageContaining("'" + "n".repeat(64) + "' (10000 characters, shortened)")
        .hasMessageNotContaining("n".repeat(65));
  }

  @Test
  void randomTextNeverThrowsAnythingButThePoisonException() {
    Random random = new Random(20260311L);
    String alphabet =
        "{}[]:,\"\\ \t\nuabcdefn0123456789-.eE+truefalsnl\u00e9\uD83D\uDE00\uDE00\u0001";
    int parsed = 0;
    List<String> unexpected = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      StringBuilder sb = new StringBuilder();
      int length = random.nextInt(24);
      if (random.nextBoolean()) {
        sb.append('{');
      }
      for (int k = 0; k < length; k++) {
        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      try {
        List<RecordHeader> headers = ApplicationHeaders.parse(sb.toString());
        parsed++;
        for (RecordHeader h : headers) {
          if (h.name().isEmpty() || ApplicationHeaders.RESERVED.contains(h.name())) {
            unexpected.add(sb + " gave header '" + h.name() + "'");
          }
        }
      } catch (RoutingException e) {
        if (e.reason() != RoutingException.Reason.INVALID_HEADERS
            || e.getMessage().isBlank()
            || e.getMessage().contains("\n")) {
          unexpected.add(sb + ": " + e.reason() + " " + e.getMessage());
        }
      }
    }
    assertThat(unexpected).isEmpty();
    assertThat(parsed).as("some random texts are valid objects").isPositive();
  }

  @Test
  void mutatedValidObjectsNeverThrowAnythingButThePoisonException() {
    Random random = new Random(7L);
    String valid = "{\"tenant\":\"acme\",\"trace\":\"caf\\u00e9\\ud83d\\ude00\",\"x\":\"\\n\"}";
    int refused = 0;
    for (int i = 0; i < 30_000; i++) {
      StringBuilder sb = new StringBuilder(valid);
      for (int m = 1 + random.nextInt(3); m > 0; m--) {
        int at = random.nextInt(sb.length());
        switch (random.nextInt(3)) {
          case 0 -> sb.deleteCharAt(at);
          case 1 -> sb.insert(at, valid.charAt(random.nextInt(valid.length())));
          default -> sb.setCharAt(at, (char) random.nextInt(0x80));
        }
      }
      try {
        ApplicationHeaders.parse(sb.toString());
      } catch (RoutingException e) {
        refused++;
        if (e.reason() != RoutingException.Reason.INVALID_HEADERS) {
          throw e;
        }
      }
    }
    assertThat(refused).as("most mutations break the object").isGreaterThan(10_000);
  }

  @Test
  void parsesManyHeadersQuickly() {
    // Not a benchmark: a guard against an accidentally quadratic parser.
    List<String> members = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      members.add("\"h" + i + "\":\"value-" + i + "\"");
    }
    String json = "{" + String.join(",", members) + "}";
    long start = System.nanoTime();
    for (int i = 0; i < 50; i++) {
      assertThat(ApplicationHeaders.parse(json)).hasSize(2000);
    }
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
  }
}
