package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HeadersJsonTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static Map<String, String> parse(String json) throws Exception {
    return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() {});
  }

  private static String string(String s) {
    StringBuilder json = new StringBuilder();
    HeadersJson.string(json, s);
    return json.toString();
  }

  @Test
  void writesNullForNoHeaders() {
    assertThat(HeadersJson.encode(Map.of())).isNull();
  }

  @Test
  void writesAnObjectOfStringsInTheMapsOrder() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    headers.put("tenant", "acme");

    assertThat(HeadersJson.encode(headers))
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
  void givesBackTheSameStringsWhenParsedForRandomText() throws Exception {
    Random random = new Random(42);
    for (int round = 0; round < 2_000; round++) {
      Map<String, String> headers = new LinkedHashMap<>();
      int count = 1 + random.nextInt(4);
      while (headers.size() < count) {
        headers.put(
            randomText(random, 1 + random.nextInt(8)), randomText(random, random.nextInt(40)));
      }

      String json = HeadersJson.encode(headers);

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
