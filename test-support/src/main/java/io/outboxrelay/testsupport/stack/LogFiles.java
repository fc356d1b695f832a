package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads the end of log files for error messages. Stateless and thread-safe.
 *
 * <p>Only the last {@value #MAX_TAIL_BYTES} bytes are read, so tails of large broker logs stay
 * cheap.
 */
public final class LogFiles {

  static final int MAX_TAIL_BYTES = 256 * 1024;

  private LogFiles() {}

  /**
   * Returns the last {@code lines} lines of a file, or a short note if the file does not exist.
   *
   * @param file the log file
   * @param lines how many lines, at least 1
   * @return the lines joined by {@code \n}, never {@code null}
   */
  public static String tail(Path file, int lines) {
    if (lines < 1) {
      throw new IllegalArgumentException("lines must be at least 1: " + lines);
    }
    if (!Files.isRegularFile(file)) {
      return "(no log file " + file + ")";
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long length = raf.length();
      int size = (int) Math.min(length, MAX_TAIL_BYTES);
      byte[] bytes = new byte[size];
      raf.seek(length - size);
      raf.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      String[] all = text.split("\n", -1);
      int end = all.length;
      if (end > 0 && all[end - 1].isEmpty()) {
        end--;
      }
      // The first line may be cut in the middle when the file was larger than the window.
      int firstComplete = size < length ? 1 : 0;
      int start = Math.max(firstComplete, end - lines);
      return String.join("\n", Arrays.copyOfRange(all, start, Math.max(start, end)));
    } catch (IOException e) {
      return "(could not read " + file + ": " + e + ")";
    }
  }

  /**
   * Formats a labelled tail for an exception message.
   *
   * @param label what the log is, e.g. {@code "error log"}
   * @param file the log file
   * @param lines how many lines
   * @return a block starting with a newline
   */
  public static String labelledTail(String label, Path file, int lines) {
    return "\n--- last " + lines + " lines of " + label + " " + file + " ---\n" + tail(file, lines);
  }
}
