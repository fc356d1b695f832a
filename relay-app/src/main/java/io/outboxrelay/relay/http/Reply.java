package io.outboxrelay.relay.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * An answer of the endpoint: status, content type and body, written as an HTTP/1.1 response that
 * closes its connection ({@code Connection: close}) and is never cached.
 *
 * @param status the status code
 * @param contentType the body's media type
 * @param body the body, in UTF-8
 * @param allow the {@code Allow} header's value, or {@code null} for none
 */
record Reply(int status, String contentType, String body, String allow) {

  private static final String TEXT = "text/plain; charset=utf-8";

  /** HTTP's date format (RFC 9110's IMF-fixdate): {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
  private static final DateTimeFormatter DATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT);

  /** A request line that is not HTTP/1.x. */
  static final Reply BAD_REQUEST = text(400, "bad request\n");

  /** A request head larger than {@link ConnectionLoop#MAX_HEAD_BYTES}. */
  static final Reply HEAD_TOO_LARGE = text(431, "request head too large\n");

  /** A failure of the handler. */
  static final Reply SERVER_ERROR = text(500, "internal error\n");

  /** A connection beyond the limit, closed at once. */
  static final Reply TOO_MANY_CONNECTIONS = text(503, "too many connections\n");

  /**
   * A plain-text answer.
   *
   * @param status the status code
   * @param body the text
   * @return the answer
   */
  static Reply text(int status, String body) {
    return new Reply(status, TEXT, body, null);
  }

  /**
   * The response's bytes: status line, headers and, unless {@code headOnly}, the body.
   *
   * @param headOnly true for a {@code HEAD} request: the headers a {@code GET} would get, no body
   * @return the bytes, ready to write
   */
  ByteBuffer bytes(boolean headOnly) {
    byte[] content = body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder(160)
            .append("HTTP/1.1 ")
            .append(status)
            .append(' ')
            .append(reason(status))
            .append("\r\nDate: ")
            .append(DATE.format(ZonedDateTime.now(ZoneOffset.UTC)))
            .append("\r\nContent-Type: ")
            .append(contentType)
            .append("\r\nContent-Length: ")
            .append(content.length)
            .append("\r\nCache-Control: no-store\r\nConnection: close\r\n");
    if (allow != null) {
      head.append("Allow: ").append(allow).append("\r\n");
    }
    byte[] headBytes = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    ByteBuffer out = ByteBuffer.allocate(headBytes.length + (headOnly ? 0 : content.length));
    out.put(headBytes);
    if (!headOnly) {
      out.put(content);
    }
    return out.flip();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      default -> "Status " + status;
    };
  }
}
