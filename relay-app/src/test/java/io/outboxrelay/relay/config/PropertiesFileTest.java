package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class PropertiesFileTest {

  /** Lines that stress what Properties.load does with comments, continuations and escapes. */
  private static final String TRICKY =
      String.join(
          "\n",
          "# a comment ending in a backslash does not continue \\",
          "a=1",
          "  ! another comment",
          "b = two \\",
          "    words",
          "c:3",
          "d 4",
          "e=ends with an escaped backslash \\\\",
          "f=5",
          "g=multi \\",
          "  # not a comment \\",
          "  line",
          "key\\ with\\ spaces=x",
          "h=\\u00e9t\\u00e9",
          "\t\f",
          "i=tab\\tnewline\\n",
          "a=again\r\nj=after a CRLF\rk=after a CR",
          "l=at the end \\");

  @Test
  void readsEveryEntryAsPropertiesDoesKeepingItsLine() throws IOException {
    Properties expected = new Properties();
    expected.load(new StringReader(TRICKY));

    List<PropertiesFile.Entry> entries = PropertiesFile.entries(TRICKY);

    Map<String, String> lastValues = new HashMap<>();
    entries.forEach(e -> lastValues.put(e.key(), e.value()));
    Map<String, String> properties = new HashMap<>();
    expected.stringPropertyNames().forEach(k -> properties.put(k, expected.getProperty(k)));
    assertThat(lastValues).isEqualTo(properties);
    assertThat(entries)
        .filteredOn(e -> e.key().equals("a"))
        .extracting(PropertiesFile.Entry::line)
        .containsExactly(2, 17);
    assertThat(entries)
        .extracting(PropertiesFile.Entry::key)
        .containsExactly(
            "a", "b", "c", "d", "e", "f", "g", "key with spaces", "h", "i", "a", "j", "k", "l");
    assertThat(lastValues)
        .containsEntry("b", "two words")
        .containsEntry("g", "multi # not a comment line")
        .containsEntry("h", "été");
  }

  @Test
  void namesTheLineOfAMalformedUnicodeEscape() {
    assertThatThrownBy(() -> PropertiesFile.entries("a=1\nb=\\u00zz\n"))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("line 2: ");
  }

  @Test
  void noEscapeOfTheTrickyLinesCountsAsADroppedBackslash() throws IOException {
    assertThat(PropertiesFile.entries(TRICKY))
        .allSatisfy(e -> assertThat(e.droppedBackslash()).as(e.key()).isFalse());
  }

  @Test
  void aBackslashBeforeAnOrdinaryCharacterIsSaidToBeDroppedNamingTheKeyNotTheValue(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("relay.properties");
    java.nio.file.Files.writeString(
        file, "source.password=x7\\qz9\nsource.user=ok\\\\fine\nsource.host=db\\.internal\n");

    PropertiesFile.Contents contents = PropertiesFile.read(file);

    assertThat(contents.entries()).containsEntry("source.password", "x7qz9");
    assertThat(contents.warnings())
        .containsExactly(
            "source.password (line 1 of "
                + file
                + ") holds a backslash that starts no escape (\\t, \\n, \\r, \\f, \\\\,"
                + " \\uXXXX), so it was dropped from the value: write \\\\ for a backslash",
            "source.host (line 3 of "
                + file
                + ") holds a backslash that starts no escape (\\t, \\n, \\r, \\f, \\\\,"
                + " \\uXXXX), so it was dropped from the value: write \\\\ for a backslash");
    assertThat(String.join("\n", contents.warnings())).doesNotContain("x7").doesNotContain("qz9");
  }
}
