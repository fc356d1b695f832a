package io.outboxrelay.writer;

/**
 * Turns a payload object into the bytes stored in the payload column (UTF-8 text, normally JSON).
 * The writer calls it for payloads given as objects, before it writes anything; a {@code String} or
 * {@code byte[]} payload is never passed to it.
 *
 * <p>{@link io.outboxrelay.writer.jackson.JacksonPayloadSerializer} serialises with a Jackson
 * {@code ObjectMapper}; any other library fits in a lambda: {@code value -> gson.toJson(value)
 * .getBytes(UTF_8)}.
 *
 * <p>Implementations must be thread-safe: one writer serves many threads.
 */
@FunctionalInterface
public interface PayloadSerializer {

  /**
   * Serialises a payload.
   *
   * @param payload the object; never {@code null}
   * @return its bytes, valid UTF-8; not {@code null}
   * @throws Exception when it cannot: the writer refuses the event with an {@link
   *     InvalidEventException} that carries it as its cause, and writes nothing
   */
  byte[] serialize(Object payload) throws Exception;
}
