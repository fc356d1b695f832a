package io.outboxrelay.relay.http;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The request line of an HTTP/1.x request: its method and the decoded path of its target (without
 * the query). The endpoint reads nothing else of a request: its headers are skipped, a body is
 * never read.
 *
 * @param method the method, e.g. {@code GET}
 * @param path the target's path, e.g. {@code /health/ready}
 */
record RequestHead(String method, String path) {

  /**
   * Where the head in {@code buffer} (position 0 to its position) ends: the index after the blank
   * line that closes it, {@code \r\n\r\n} or a bare {@code \n\n}.
   *
   * @return the index, or -1 while the head is incomplete
   */
  static int endOf(ByteBuffer buffer) {
    byte[] bytes = buffer.array();
    int length = buffer.position();
    for (int i = 1; i < length; i++) {
      if (bytes[i] == '\n'
          && (bytes[i - 1] == '\n' || (i >= 3 && bytes[i - 1] == '\r' && bytes[i - 2] == '\n'))) {
        return i + 1;
      }
    }
    return -1;
  }

  /**
   * Parses the request line at the start of {@code buffer}.
   *
   * @param buffer the head as read, from index 0
   * @param end the head's end, as {@link #endOf} found it
   * @return the request line, or {@code null} when it is not {@code METHOD SP target SP HTTP/x.y}
   */
  static RequestHead parse(ByteBuffer buffer, int end) {
    String head = new String(buffer.array(), 0, end, StandardCharsets.ISO_8859_1);
    int eol = head.indexOf('\n');
    String line = head.substring(0, eol).stripTrailing();
    String[] parts = line.split(" ", -1);
    if (parts.length != 3
        || !parts[0].matches("[A-Z]{1,20}")
        || !parts[2].matches("HTTP/1\\.[0-9]")
        || parts[1].isEmpty()) {
      return null;
    }
    try {
      String path = URI.create(parts[1]).getPath();
      return new RequestHead(parts[0], path == null || path.isEmpty() ? "/" : path);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
