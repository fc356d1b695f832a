package io.outboxrelay.router;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8, the contract's text encoding: payloads, header values and header names are UTF-8
 * text, and bytes that are not are refused rather than altered (the JDK's {@code new String(bytes,
 * UTF_8)} would replace them with U+FFFD without a word). The writer checks payloads with it, the
 * Kafka Connect transform header values, the consumer library event ids and versions. Stateless and
 * thread-safe.
 */
public final class Utf8 {

  private Utf8() {}

  /**
   * Decodes bytes that must be UTF-8.
   *
   * @param bytes the bytes; not {@code null}
   * @return the text
   * @throws CharacterCodingException when the bytes are not well-formed UTF-8
   */
  public static String decode(byte[] bytes) throws CharacterCodingException {
    // A fresh decoder per call: decoders are stateful.
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString();
  }
}
