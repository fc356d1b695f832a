package io.outboxrelay.writer;

import io.outboxrelay.router.Utf8;
import java.nio.charset.CharacterCodingException;

/** Turns an event's payload into the text stored in the payload column. */
final class Payloads {

  private Payloads() {}

  /**
   * The payload's text: a {@code String} as is, {@code byte[]} decoded as UTF-8, any other object
   * serialised and decoded.
   *
   * @param serializer the writer's serializer, or {@code null}
   * @throws InvalidEventException if the bytes are not UTF-8, there is no serializer for an object,
   *     or the serializer fails
   */
  static String text(int i, int count, NewEvent e, PayloadSerializer serializer) {
    Object payload = e.payloadForWriting();
    if (payload instanceof String text) {
      return text;
    }
    if (payload instanceof byte[] bytes) {
      return utf8(i, count, e, bytes, "the payload bytes are not valid UTF-8");
    }
    String type = payload.getClass().getName();
    if (serializer == null) {
      throw EventCheck.refuse(
          i,
          count,
          e,
          "payload",
          "the payload is a "
              + type
              + " but the writer has no PayloadSerializer: build it with .serializer(...), e.g."
              + " new JacksonPayloadSerializer(objectMapper), or give the payload as a String or"
              + " byte[]");
    }
    byte[] bytes;
    try {
      bytes = serializer.serialize(payload);
    } catch (Exception | LinkageError failure) {
      throw EventCheck.refuse(
          i,
          count,
          e,
          "payload",
          "the payload (a "
              + type
              + ") cannot be serialised: the PayloadSerializer threw "
              + failure.getClass().getName()
              + " (see the cause)",
          failure);
    }
    if (bytes == null) {
      throw EventCheck.refuse(
          i, count, e, "payload", "the PayloadSerializer returned null for a " + type);
    }
    return utf8(
        i, count, e, bytes, "the PayloadSerializer's bytes for a " + type + " are not UTF-8");
  }

  private static String utf8(int i, int count, NewEvent e, byte[] bytes, String problem) {
    try {
      return Utf8.decode(bytes);
    } catch (CharacterCodingException notUtf8) {
      throw EventCheck.refuse(
          i, count, e, "payload", problem + ": the payload column holds text", notUtf8);
    }
  }
}
