package io.outboxrelay.testsupport.stack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows a growing log file from a byte offset and hands out complete lines, like {@code tail -f}.
 *
 * <p>Not thread-safe: one caller polls it.
 */
final class LogFollower {

  private final Path file;
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private long position;

  /**
   * @param file the file to follow, may not exist yet
   * @param position the byte offset to start at
   */
  LogFollower(Path file, long position) {
    this.file = file;
    this.position = position;
  }

  /**
   * Returns the lines appended since the last call.
   *
   * @param includePartialLine also return a trailing line without a newline (use once the writer
   *     has exited)
   * @return the new lines, without line terminators
   * @throws UncheckedIOException if the file cannot be read
   */
  List<String> newLines(boolean includePartialLine) {
    List<String> lines = new ArrayList<>();
    if (Files.isRegularFile(file)) {
      readNewBytes(lines);
    }
    if (includePartialLine && partial.size() > 0) {
      lines.add(partial.toString(StandardCharsets.UTF_8));
      partial.reset();
    }
    return lines;
  }

  private void readNewBytes(List<String> lines) {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long length = raf.length();
      if (length < position) {
        position = 0; // truncated or replaced: start over
        partial.reset();
      }
      raf.seek(position);
      byte[] buffer = new byte[8192];
      int read;
      while (position < length && (read = raf.read(buffer)) > 0) {
        position += read;
        for (int i = 0; i < read; i++) {
          if (buffer[i] == '\n') {
            lines.add(stripCarriageReturn(partial.toString(StandardCharsets.UTF_8)));
            partial.reset();
          } else {
            partial.write(buffer[i]);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static String stripCarriageReturn(String line) {
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }
}
