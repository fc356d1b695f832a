package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ApplicationHeaders#encode}: what it writes, {@link ApplicationHeaders#parse} reads back.
 */
class ApplicationHeadersEncodingTest {

  private static Map<String, String> parse(String json) {
    Map<String, String> headers = new LinkedHashMap<>();
    ApplicationHeaders.parse(json).forEach(h -> headers.put(h.name(), h.valueAsString()));
    return headers;
  }

  /** The JSON string {@code encode} writes for {@code s}, as the value of a header {@code v}. */
  private static String string(String s) {
    String json = ApplicationHeaders.encode(Map.of("v", s));
    return json.substring("{\"v\":".length(), json.length() - 1);
  }

  @Test
  void writesNullForNoHeaders() {
    assertThat(ApplicationHeaders.encode(Map.of())).isNull();
  }

  @Test
  void writesAnObjectOfStringsInTheMapsOrder() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    headers.put("tenant", "acme");

    assertThat(ApplicationHeaders.encode(headers))
        .isEqualTo(
            "{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\","
                + "\"tenant\":\"acme\"}");
  }

  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    assertThat(string("a\"b")).isEqualTo("\"a\\\"b\"");
    assertThat(string("a\\b")).isEqualTo("\"a\\\\b\"");
    assertThat(string("\n\r\t\b\f")).isEqualTo("\"\\n\\r\\t\\b\\f\"");
    assertThat(string("\u0000\u0001\u001f")).isEqualTo("\"\\u0000\\u0001\\u001f\"");
    assertThat(string("/ ~")).isEqualTo("\"/ ~\"");
  }

  @Test
  void escapesEveryNonAsciiCharacterSoTheTextIsAscii() {
    assertThat(string("é")).isEqualTo("\"\\u00e9\"");
    assertThat(string("€")).isEqualTo("\"\\u20ac\"");
    assertThat(string("\u007f")).isEqualTo("\"\\u007f\"");
    assertThat(string("𝄞")).as("a surrogate pair").isEqualTo("\"\\ud834\\udd1e\"");
    assertThat(string("\u2028")).isEqualTo("\"\\u2028\"");
  }

  @Test
  void theParserGivesBackTheSameHeadersForRandomText() {
    Random random = new Random(42);
    for (int round = 0; round < 2_000; round++) {
      Map<String, String> headers = new LinkedHashMap<>();
      int count = 1 + random.nextInt(4);
      while (headers.size() < count) {
        String name = randomText(random, 1 + random.nextInt(8));
        if (!ApplicationHeaders.RESERVED.contains(name)) {
          headers.put(name, randomText(random, random.nextInt(40)));
        }
      }

      String json = ApplicationHeaders.encode(headers);

      assertThat(json.chars().allMatch(c -> c >= 0x20 && c < 0x7f)).as(json).isTrue();
      assertThat(parse(json)).containsExactlyEntriesOf(headers);
    }
  }

  /** Text from every range: ASCII with quotes and controls, Latin, CJK, supplementary. */
  private static String randomText(Random random, int length) {
    StringBuilder s = new StringBuilder();
    while (s.length() < length) {
      int codePoint =
          switch (random.nextInt(5)) {
            case 0 -> random.nextInt(0x80);
            case 1 -> "\"\\/\n\t".charAt(random.nextInt(5));
            case 2 -> 0x80 + random.nextInt(0x700);
            case 3 -> 0x4e00 + random.nextInt(0x5000);
            default -> 0x10000 + random.nextInt(0x10000);
          };
      s.appendCodePoint(codePoint);
    }
    return s.toString();
  }
}
