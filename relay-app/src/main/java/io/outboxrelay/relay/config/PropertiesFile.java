package io.outboxrelay.relay.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Reads a relay properties file: UTF-8 text, a byte order mark at its start ignored, each key's
 * last value kept and a warning for each key given more than once. Its entries are read in file
 * order, each with the line it starts on. {@link Properties#load} keeps only the last value of a
 * key given twice and says nothing; the relay wants to warn about that, so it splits the text into
 * logical lines itself (comments, blank lines and backslash continuations as {@link
 * Properties#load} defines them) and lets {@link Properties} parse each one, so keys, separators
 * and escapes mean exactly what they mean there. Stateless.
 */
final class PropertiesFile {

  /**
   * One entry of the file.
   *
   * @param key the key, unescaped
   * @param value the value, unescaped
   * @param line the 1-based line the entry starts on
   * @param droppedBackslash whether its text held a backslash that starts no escape, which {@link
   *     Properties#load} drops ({@code pa\ss} reads as {@code pass})
   */
  record Entry(String key, String value, int line, boolean droppedBackslash) {}

  /**
   * What a file holds.
   *
   * @param entries each key (trimmed) with its last value
   * @param warnings one line per key given more than once
   */
  record Contents(Map<String, String> entries, List<String> warnings) {}

  private PropertiesFile() {}

  /**
   * Reads a properties file.
   *
   * @param file the file
   * @return its entries and warnings
   * @throws ConfigException when the file is not UTF-8 text or has a malformed escape
   * @throws IOException when the file cannot be read
   */
  static Contents read(Path file) throws IOException, ConfigException {
    String text = readUtf8(file);
    if (text.startsWith("\uFEFF")) {
      text = text.substring(1); // a byte order mark, which some editors write
    }
    List<Entry> entries;
    try {
      entries = entries(text);
    } catch (IOException e) {
      throw new ConfigException(List.of(file + " " + e.getMessage()));
    }
    Map<String, String> values = new HashMap<>();
    Map<String, List<Integer>> lines = new LinkedHashMap<>();
    List<String> warnings = new ArrayList<>();
    for (Entry e : entries) {
      values.put(e.key().trim(), e.value());
      lines.computeIfAbsent(e.key().trim(), k -> new ArrayList<>()).add(e.line());
      if (e.droppedBackslash()) {
        // Neither the value nor the character after the backslash: it may be a secret.
        warnings.add(
            e.key().trim()
                + " (line "
                + e.line()
                + " of "
                + file
                + ") holds a backslash that starts no escape (\\t, \\n, \\r, \\f, \\\\,"
                + " \\uXXXX), so it was dropped from the value: write \\\\ for a backslash");
      }
    }
    lines.forEach(
        (key, at) -> {
          if (at.size() > 1) {
            // No values: one of them may be a secret.
            warnings.add(
                key
                    + " is given "
                    + at.size()
                    + " times in "
                    + file
                    + " (lines "
                    + at.stream().map(String::valueOf).collect(Collectors.joining(", "))
                    + "): the last one counts; remove the others");
          }
        });
    return new Contents(values, warnings);
  }

  private static String readUtf8(Path file) throws IOException, ConfigException {
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(in)
          .toString();
    } catch (CharacterCodingException e) {
      int line = 1; // the decoder stops at the first bad byte
      for (int i = 0; i < in.position(); i++) {
        line += bytes[i] == '\n' ? 1 : 0;
      }
      throw new ConfigException(
          List.of(file + " is not UTF-8 text (line " + line + "): save it as UTF-8"));
    }
  }

  /**
   * The entries of a properties text, in file order; a key given twice appears twice.
   *
   * @param text the file's text, without a byte order mark
   * @return the entries
   * @throws IOException when {@link Properties} refuses a line (a malformed unicode escape)
   */
  static List<Entry> entries(String text) throws IOException {
    List<String> lines = naturalLines(text);
    List<Entry> entries = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      int first = i;
      String start = stripLeadingWhitespace(lines.get(i));
      if (start.isEmpty() || start.charAt(0) == '#' || start.charAt(0) == '!') {
        i++;
        continue; // blank and comment lines are never continued
      }
      StringBuilder logical = new StringBuilder(lines.get(i));
      while (endsWithEscapedNewline(lines.get(i)) && i + 1 < lines.size()) {
        i++;
        logical.append('\n').append(lines.get(i));
      }
      i++;
      Properties one = new Properties();
      try {
        one.load(new StringReader(logical.toString()));
      } catch (IllegalArgumentException e) { // a malformed unicode escape
        throw new IOException("line " + (first + 1) + ": " + e.getMessage(), e);
      }
      boolean dropped = dropsABackslash(logical);
      for (String key : one.stringPropertyNames()) {
        entries.add(new Entry(key, one.getProperty(key), first + 1, dropped));
      }
    }
    return entries;
  }

  /**
   * Whether a logical line holds a backslash that starts none of the escapes a properties file
   * means on purpose (the escapes of tab, newline, return, form feed, backslash and a Unicode code
   * unit, an escaped separator, comment sign or space, a continuation at a line's end): {@link
   * Properties#load} then drops the backslash, and a password such as {@code pa\ss} silently
   * becomes {@code pass}.
   */
  static boolean dropsABackslash(CharSequence logical) {
    for (int i = 0; i < logical.length(); i++) {
      if (logical.charAt(i) != '\\') {
        continue;
      }
      if (i + 1 >= logical.length()) {
        return false; // a continuation of the last line: nothing follows
      }
      char next = logical.charAt(++i);
      if ("tnrfu\\=:#! \n\r".indexOf(next) < 0) {
        return true;
      }
    }
    return false;
  }

  /** Lines as {@link Properties#load} ends them: at {@code \n}, {@code \r} or {@code \r\n}. */
  private static List<String> naturalLines(String text) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\r') {
        lines.add(text.substring(start, i));
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    if (start < text.length()) {
      lines.add(text.substring(start));
    }
    return lines;
  }

  /** Properties' white space: space, tab and form feed (not every Unicode space). */
  private static String stripLeadingWhitespace(String line) {
    int i = 0;
    while (i < line.length()
        && (line.charAt(i) == ' ' || line.charAt(i) == '\t' || line.charAt(i) == '\f')) {
      i++;
    }
    return line.substring(i);
  }

  /** An odd number of trailing backslashes: the last one escapes the line terminator. */
  private static boolean endsWithEscapedNewline(String line) {
    int backslashes = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }
}
